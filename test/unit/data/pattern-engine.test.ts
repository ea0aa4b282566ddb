// The user-pattern engine loads when a table schema that declares a pattern is met, and only then.
// This file's module graph starts without it, as a cold Lambda does.
import { describe, expect, it } from 'vitest';
import { analyzeTableSchema } from '#functions/data/tables/table-schema.ts';
import { declaresPattern, loadPatternEngineFor, patternEngine } from '#shared/text/pattern-engine.ts';

const target = { schemaName: 's', tableName: 'app_t', provider: 'flat_table' as const, name: 't' };
const plain = { fields: [{ name: 'title', type: 'string', constraints: { maxLength: 20 } }] };
const patterned = { fields: [{ name: 'code', type: 'string', constraints: { pattern: '[A-Z]{3}' } }] };

describe('the pattern engine', () => {
  it('tells a schema that declares a pattern where the compiler reads one, and nothing else', () => {
    expect(declaresPattern(patterned)).toBe(true);
    expect(declaresPattern({ fields: [{ name: 'a', type: 'string', constraints: { pattern: '' } }] })).toBe(true);
    for (const schema of [
      plain,
      undefined,
      null,
      'pattern',
      [patterned],
      { fields: 'pattern' },
      { fields: [null, 3, 'x', ['pattern']] },
      { fields: [{ name: 'pattern', type: 'string' }] },
      { fields: [{ name: 'a', constraints: ['pattern'] }] },
      { fields: [{ name: 'a', constraints: null }] },
      { fields: [{ name: 'a', description: 'constraints.pattern' }] },
      { pattern: 'x', constraints: { pattern: 'x' } },
      JSON.parse('{"fields": [{"name": "a", "constraints": {"__proto__": {"pattern": "x"}}}]}'),
      { fields: [{ name: 'a', constraints: Object.create({ pattern: 'inherited' }) }] },
    ]) {
      expect(declaresPattern(schema), JSON.stringify(schema)).toBe(false);
    }
  });

  it('is not loaded by schemas without a pattern, and compiling a pattern before it loads is an internal error', async () => {
    await loadPatternEngineFor([plain, undefined, { fields: 'x' }]);
    expect(() => patternEngine()).toThrow(/before the pattern engine was loaded/);
    expect('compiled' in analyzeTableSchema(plain, target)).toBe(true);
    expect(() => analyzeTableSchema(patterned, target)).toThrow(/before the pattern engine was loaded/);
  });

  it('loads for a schema that declares one, and then compiles it', async () => {
    await loadPatternEngineFor([plain, patterned]);
    expect(patternEngine().compileUserPattern('[A-Z]{3}', { match: 'whole' }).test('ABC')).toBe(true);
    expect('compiled' in analyzeTableSchema(patterned, target)).toBe(true);
    const refused = analyzeTableSchema({ fields: [{ name: 'c', type: 'string', constraints: { pattern: '(a)\\1' } }] }, target);
    expect('problems' in refused && refused.problems.join(' ')).toMatch(/pattern/);
  });
});
