import { describe, expect, it } from 'vitest';
import { analyzeTableSchema, schemaHash } from '#functions/data/tables/table-schema.ts';
import { loadPatternEngine } from '#shared/text/pattern-engine.ts';

// Schemas compiled here do not come through the repositories, which load the pattern engine on need.
await loadPatternEngine();

const target = { schemaName: 's', tableName: 'app_t', provider: 'flat_table' as const, name: 't' };
const problemsOf = (schema: unknown) => {
  const result = analyzeTableSchema(schema, target);
  return 'problems' in result ? result.problems.join(' | ') : '';
};

describe('Table Schema validation', () => {
  it.each([
    ['a field without a name', { fields: [{ type: 'string' }] }, 'needs a "name"'],
    ['a field without a type', { fields: [{ name: 'a' }] }, 'needs a "type"'],
    ['an unknown type, listing the valid ones', { fields: [{ name: 'a', type: 'text' }] }, 'Valid types: string, number'],
    ['an unknown format', { fields: [{ name: 'a', type: 'string', format: 'phone' }] }, 'unknown format'],
    ['an unsafe field name', { fields: [{ name: 'A"; drop', type: 'string' }] }, 'is not valid'],
    ['a too long field name', { fields: [{ name: 'a'.repeat(64), type: 'string' }] }, 'is not valid'],
    [
      'a duplicate field',
      {
        fields: [
          { name: 'a', type: 'string' },
          { name: 'a', type: 'string' },
        ],
      },
      'more than once',
    ],
    ['a primary key naming no field', { fields: [{ name: 'a', type: 'string' }], primaryKey: ['b'] }, 'do not exist'],
    ['an index naming no field', { fields: [{ name: 'a', type: 'string' }], indexes: [{ fields: ['b'] }] }, 'do not exist'],
    [
      'an unknown index method',
      { fields: [{ name: 'a', type: 'string' }], indexes: [{ fields: ['a'], method: 'rtree' }] },
      'Valid methods',
    ],
    [
      'an unsafe where',
      { fields: [{ name: 'a', type: 'string' }], indexes: [{ fields: ['a'], where: "a = 'x'; drop table t" }] },
      'where is not a supported predicate',
    ],
    ['an expression index', { fields: [{ name: 'a', type: 'string' }], indexes: [{ expression: 'lower(a)' }] }, 'not supported'],
    [
      'a foreign key to an unknown table',
      { fields: [{ name: 'a', type: 'string' }], foreignKeys: [{ fields: ['a'], reference: { resource: 'x', fields: ['id'] } }] },
      'not a table of this app',
    ],
    [
      'an unknown onDelete',
      {
        fields: [
          { name: 'p', type: 'string' },
          { name: 'a', type: 'string' },
        ],
        primaryKey: ['p'],
        foreignKeys: [{ fields: ['a'], reference: { resource: 't', fields: ['p'] }, 'x-actions': { onDelete: 'DROP' } }],
      },
      'Valid actions',
    ],
    [
      'SET NULL on a required field',
      {
        fields: [
          { name: 'p', type: 'string' },
          { name: 'a', type: 'string', constraints: { required: true } },
        ],
        primaryKey: ['p'],
        foreignKeys: [{ fields: ['a'], reference: { resource: 't', fields: ['p'] }, 'x-actions': { onDelete: 'SET NULL' } }],
      },
      'nullable',
    ],
    [
      'SET DEFAULT without a default',
      {
        fields: [
          { name: 'p', type: 'string' },
          { name: 'a', type: 'string' },
        ],
        primaryKey: ['p'],
        foreignKeys: [{ fields: ['a'], reference: { resource: 't', fields: ['p'] }, 'x-actions': { onDelete: 'SET DEFAULT' } }],
      },
      'needs a default',
    ],
    [
      'search sources that are not string fields',
      {
        fields: [
          { name: 'n', type: 'integer' },
          { name: 'search_vector', type: 'string', 'x-source-fields': ['n'] },
        ],
      },
      'must name string fields',
    ],
    [
      'search sources that do not exist',
      {
        fields: [
          { name: 'n', type: 'string' },
          { name: 'search_vector', type: 'string', 'x-source-fields': ['zz'] },
        ],
      },
      'do not exist',
    ],
    [
      'an enum value of the wrong type',
      { fields: [{ name: 'n', type: 'integer', constraints: { enum: [1, 'two'] } }] },
      'not of type integer',
    ],
    ['an invalid pattern', { fields: [{ name: 'n', type: 'string', constraints: { pattern: '(' } }] }, 'is never closed'],
    ['a JavaScript-only pattern', { fields: [{ name: 'n', type: 'string', constraints: { pattern: '(?:a)' } }] }, 'non-capturing groups'],
    [
      'a default its own constraints refuse',
      { fields: [{ name: 'n', type: 'string', default: 'AB', constraints: { pattern: '[a-z]+' } }] },
      'breaks the field',
    ],
  ])('refuses %s', (_label, schema, message) => {
    expect(problemsOf(schema)).toContain(message);
  });

  it('adds a generated uuid id key when none is declared', () => {
    const result = analyzeTableSchema({ fields: [{ name: 'a', type: 'string' }] }, target);
    expect('compiled' in result && result.compiled.descriptor.fields[0]).toMatchObject({ name: 'id', format: 'uuid', generated: 'uuid' });
  });

  it('hashes equal documents equally whatever their key order', () => {
    expect(schemaHash({ a: 1, b: { c: 2, d: 3 } })).toBe(schemaHash({ b: { d: 3, c: 2 }, a: 1 }));
    expect(schemaHash({ a: 1 })).not.toBe(schemaHash({ a: 2 }));
  });
});
