// User-supplied regular expressions over HTTP: Table Schema `pattern` constraints and secret-type
// JSON Schema patterns run on a linear-time engine. Values of 10,000 characters under patterns that
// make a backtracking engine take hours are judged in well under a second each; patterns that need
// backtracking are refused with 400 when the schema or secret type is saved.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

/** Patterns whose backtracking cost doubles (or worse) with each character of a near-miss value. */
const PATHOLOGICAL = { nested: '(a+)+$', alternation: '(a|aa)+$', repeated: '(.*a){20}' };
const LENGTH = 10_000;
const MATCHING = 'a'.repeat(LENGTH);
const NEAR_MISS = `${'a'.repeat(LENGTH - 1)}!`;
/** Generous: the linear engine needs milliseconds; a backtracking one would not finish in a day. */
const BOUND_MS = 5_000;

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

describe.each(['flat_table', 'jsonb'])('pattern constraints on %s tables', (provider) => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  const DATA = '/api/apps/regex/datatables/texts/data/';
  const TABLE = '/api/apps/regex/datasources/main/datatables/';
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, `Patterns ${provider}`)).headers;
    expect((await call('POST', '/api/apps/', { name: 'Regex' })).status).toBe(201);
    expect((await call('POST', '/api/apps/regex/datasources/', { name: 'Main', provider_type: provider })).status).toBe(201);
    const schema = {
      fields: [
        { name: 'id', type: 'integer' },
        ...Object.entries(PATHOLOGICAL).map(([name, pattern]) => ({ name, type: 'string', constraints: { pattern } })),
        { name: 'code', type: 'string', constraints: { pattern: '[A-Z]{3}-\\d+' } },
      ],
      primaryKey: ['id'],
    };
    expect((await call('POST', TABLE, { name: 'texts', json_schema: schema })).status).toBe(201);
    expect((await call('POST', '/api/apps/regex/datatables/texts/materialize/')).status).toBe(200);
  });
  afterAll(async () => {
    await app.close();
  });

  it('judges 10,000-character values under pathological patterns in linear time, on every write path', async () => {
    const { result, ms } = await timed(async () => {
      const refused = await call('POST', DATA, {
        id: 1,
        ...Object.fromEntries(Object.keys(PATHOLOGICAL).map((name) => [name, NEAR_MISS])),
      });
      const created = await call('POST', DATA, { id: 2, ...Object.fromEntries(Object.keys(PATHOLOGICAL).map((name) => [name, MATCHING])) });
      const bulk = await call(
        'POST',
        DATA,
        Array.from({ length: 20 }, (_, i) => ({ id: 100 + i, nested: NEAR_MISS })),
      );
      const patched = await call('PATCH', `${DATA}2/`, { alternation: NEAR_MISS });
      const bulkPatched = await call('PATCH', DATA, [{ id: 2, repeated: NEAR_MISS }]);
      const upserted = await call('POST', `${DATA}upsert/?unique_fields=id`, { id: 2, nested: NEAR_MISS });
      const validated = await call('POST', '/api/apps/regex/datatables/texts/validate_data/', {
        data: [
          { id: 3, nested: NEAR_MISS, alternation: NEAR_MISS, repeated: NEAR_MISS },
          { id: 4, nested: MATCHING },
        ],
      });
      return { refused, created, bulk, patched, bulkPatched, upserted, validated };
    });

    expect(ms).toBeLessThan(BOUND_MS);
    expect(result.refused.status).toBe(400);
    expect(Object.keys(result.refused.body.details).sort()).toEqual(['alternation', 'nested', 'repeated']);
    expect(result.refused.body.details.nested[0]).toContain('does not match the pattern');
    expect(result.created.status).toBe(201);
    expect(result.created.body.data.nested).toHaveLength(LENGTH);
    expect(result.bulk.status).toBe(400);
    expect(Object.keys(result.bulk.body.details)).toHaveLength(20);
    expect(result.bulk.body.details['19.nested']).toBeDefined();
    expect(result.patched.status).toBe(400);
    expect(result.patched.body.details.alternation).toBeDefined();
    expect(result.bulkPatched.status).toBe(400);
    expect(result.bulkPatched.body.details['0.repeated']).toBeDefined();
    expect(result.upserted.status).toBe(400);
    expect(result.upserted.body.details.nested).toBeDefined();
    expect(result.validated.status).toBe(200);
    expect(result.validated.body.is_valid).toBe(false);
    expect(result.validated.body.errors).toHaveLength(3);
    expect(result.validated.body.errors.every((e: string) => e.startsWith('Row 1:'))).toBe(true);
    const stored = await call('GET', `${DATA}2/`);
    expect(stored.status).toBe(200);
    expect(JSON.stringify(stored.body)).toContain(`"alternation":"${MATCHING}"`);
    expect(JSON.stringify(stored.body)).not.toContain('!');
  });

  it('matches the whole value, as Table Schema says', async () => {
    expect((await call('POST', DATA, { id: 10, code: 'ABC-12' })).status).toBe(201);
    const prefixOnly = await call('POST', DATA, { id: 11, code: 'ABC-12x' });
    expect(prefixOnly.status).toBe(400);
    expect(prefixOnly.body.details.code[0]).toContain('does not match the pattern');
    expect((await call('POST', DATA, { id: 12, code: 'xABC-12' })).status).toBe(400);
  });

  it('reads patterns as XML Schema regular expressions, alike in validate_data and every write', async () => {
    const patterns = {
      ident: '\\i\\c*',
      latin: '\\p{IsBasicLatin}+',
      consonants: '[a-z-[aeiou]]+',
      word: '\\p{L}+',
      digits: '\\d+',
      anchored: '^[A-Z]+$',
      empty: '',
    };
    const schema = {
      fields: [
        { name: 'id', type: 'integer' },
        ...Object.entries(patterns).map(([name, pattern]) => ({ name, type: 'string', constraints: { pattern } })),
      ],
      primaryKey: ['id'],
    };
    expect((await call('POST', TABLE, { name: 'xsd', json_schema: schema })).status).toBe(201);
    expect((await call('POST', '/api/apps/regex/datatables/xsd/materialize/')).status).toBe(200);
    const XSD = '/api/apps/regex/datatables/xsd/data/';
    const good = {
      ident: 'xs:element-1',
      latin: 'plain text',
      consonants: 'rhythm',
      word: 'Ωmega',
      digits: '١٢٣',
      anchored: 'ABC',
      empty: '',
    };
    const bad = { ident: '1x', latin: 'café', consonants: 'rhyme', word: 'a1', digits: '12a', anchored: '^ABC$', empty: ' ' };
    const verdict = await call('POST', '/api/apps/regex/datatables/xsd/validate_data/', {
      data: [
        { id: 1, ...good },
        { id: 2, ...bad },
      ],
    });
    expect(verdict.status).toBe(200);
    expect(verdict.body.errors.filter((e: string) => e.startsWith('Row 1:'))).toEqual([]);
    for (const name of Object.keys(patterns))
      expect(verdict.body.errors, name).toContain(
        `Row 2: field '${name}': The value does not match the pattern ${patterns[name as keyof typeof patterns]}.`,
      );
    const created = await call('POST', XSD, { id: 1, ...good });
    expect(created.status).toBe(201);
    const refused = await call('POST', XSD, { id: 2, ...bad });
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.details).sort()).toEqual(Object.keys(patterns).sort());
    // The value read back is written back unchanged; a change is judged by the same pattern.
    const read = await call('GET', `${XSD}1/`);
    expect(
      (await call('PATCH', `${XSD}1/`, Object.fromEntries(Object.keys(patterns).map((name) => [name, read.body.data[name]])))).status,
    ).toBe(200);
    expect((await call('PATCH', `${XSD}1/`, { consonants: 'vowel' })).status).toBe(400);
    expect((await call('PATCH', XSD, [{ id: 1, latin: 'naïve' }])).body.details['0.latin']).toBeDefined();
    expect((await call('POST', `${XSD}upsert/?unique_fields=id`, { id: 1, ident: '-x' })).body.details.ident).toBeDefined();
    expect(
      (
        await call(
          'POST',
          XSD,
          Array.from({ length: 3 }, (_, i) => ({ id: 10 + i, word: i === 2 ? 'x y' : 'xy' })),
        )
      ).body.details['2.word'],
    ).toBeDefined();
  });

  it('refuses patterns outside the XML Schema dialect when the schema is saved, naming the field and the construct', async () => {
    const cases: Record<string, [string, string]> = {
      named_group: ['(?<year>\\d{4})', 'named groups'],
      lazy: ['a+?', 'lazy quantifiers'],
      boundary: ['\\bword\\b', 'word boundaries'],
      flags: ['(?i)abc', 'inline flags'],
      non_capturing: ['(?:ab)+', 'non-capturing groups'],
      caret: ['a^b', 'ambiguous'],
      bracket: ['[', 'never closed'],
      nul: ['a\u0000', 'U+0000'],
      count: ['a{1001}', 'above 1000'],
      huge_count: ['a{99999999999999999999999}', 'above 1000'],
      expanded: ['\\i'.repeat(500), 'too large once its classes are expanded'],
      unknown_block: ['\\p{IsKlingon}', 'names no Unicode block'],
    };
    for (const [name, [pattern, construct]] of Object.entries(cases)) {
      const answer = await call('POST', TABLE, {
        name: `bad_${name}`,
        json_schema: { fields: [{ name, type: 'string', constraints: { pattern } }] },
      });
      expect(answer.status, name).toBe(400);
      expect(answer.body.json_schema[0], name).toContain(`Field "${name}": pattern`);
      expect(answer.body.json_schema[0], name).toContain(construct);
    }
    const validated = await call('POST', '/api/apps/regex/datatables/texts/validate-schema/', {
      schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'code', type: 'string', constraints: { pattern: '(?=x)x' } },
        ],
        primaryKey: ['id'],
      },
    });
    expect(validated.status).toBe(200);
    expect(validated.body.valid).toBe(false);
    expect(validated.body.errors[0]).toContain('lookahead');
  });

  it('refuses patterns that need backtracking when the schema is saved, naming the field', async () => {
    const cases = {
      backreference: '(a)\\1',
      named_backreference: '(?<x>a)\\k<x>',
      lookahead: '(?=a)a',
      lookbehind: '(?<!b)a',
      invalid: '(',
    };
    for (const [name, pattern] of Object.entries(cases)) {
      const answer = await call('POST', TABLE, {
        name: `bad_${name}`,
        json_schema: { fields: [{ name, type: 'string', constraints: { pattern } }] },
      });
      expect(answer.status, name).toBe(400);
      expect(answer.body.json_schema[0], name).toContain(`Field "${name}": pattern`);
      expect(answer.body.json_schema[0], name).toContain('cannot be used');
    }
    const tooLong = await call('POST', TABLE, {
      name: 'bad_long',
      json_schema: { fields: [{ name: 'f', type: 'string', constraints: { pattern: 'a'.repeat(1001) } }] },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.json_schema[0]).toContain('longer than 1000');
    const listed = await call('GET', TABLE);
    expect(listed.body.data?.map?.((t: { name: string }) => t.name) ?? []).not.toContain('bad_backreference');
  });
});

describe('a schema change that adds or tightens a pattern or format on a column with data', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  const TABLE = '/api/apps/tight/datatables/codes/';
  const DATA = `${TABLE}data/`;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const schemaWith = (code: Record<string, unknown>, contact: Record<string, unknown> = { name: 'contact', type: 'string' }) => ({
    fields: [{ name: 'id', type: 'integer' }, { name: 'code', type: 'string', ...code }, contact],
    primaryKey: ['id'],
  });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, 'Tightened patterns')).headers;
    expect((await call('POST', '/api/apps/', { name: 'Tight' })).status).toBe(201);
    expect((await call('POST', '/api/apps/tight/datasources/', { name: 'Main', provider_type: 'flat_table' })).status).toBe(201);
    expect(
      (await call('POST', '/api/apps/tight/datasources/main/datatables/', { name: 'codes', json_schema: schemaWith({}) })).status,
    ).toBe(201);
    expect((await call('POST', `${TABLE}materialize/`)).status).toBe(200);
    const rows = [
      { id: 1, code: 'abc', contact: 'a@example.com' },
      { id: 2, code: 'ABC', contact: 'not an email' },
      { id: 3, code: null },
    ];
    expect((await call('POST', DATA, rows)).status).toBe(201);
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses the change while rows break the new pattern, naming them, and applies it once they are fixed', async () => {
    const tightened = schemaWith({ constraints: { pattern: '[a-z]+' } });
    const preview = await call('POST', `${TABLE}preview-changes/`, { new_schema: tightened });
    expect(preview.status).toBe(200);
    expect(preview.body.is_safe).toBe(false);
    expect(preview.body.warnings).toContain('1 row: values that the pattern [a-z]+ refuses in "code" (for example 2).');
    const refused = await call('PATCH', TABLE, { json_schema: tightened, allow_data_loss: true });
    expect(refused.status).toBe(400);
    expect(refused.body.warnings).toContain('1 row: values that the pattern [a-z]+ refuses in "code" (for example 2).');
    expect((await call('GET', `${TABLE}schema/`)).body.schema.fields[1].constraints).toBeUndefined();

    expect((await call('PATCH', `${DATA}2/`, { code: 'abd' })).status).toBe(200);
    const applied = await call('PATCH', TABLE, { json_schema: tightened });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    // Every row the table keeps is one its schema accepts: read back, written back.
    const listed = await call('GET', DATA);
    for (const record of listed.body.data) expect((await call('PATCH', `${DATA}${record.id}/`, { code: record.code })).status).toBe(200);
    expect((await call('POST', DATA, { id: 4, code: 'XYZ' })).status).toBe(400);
  });

  it('checks a new type that shares its column with the old one (jsonb: any, object, array, geo types)', async () => {
    const loose = {
      fields: [
        { name: 'id', type: 'integer' },
        { name: 'meta', type: 'any' },
      ],
      primaryKey: ['id'],
    };
    expect((await call('POST', '/api/apps/tight/datasources/main/datatables/', { name: 'loose', json_schema: loose })).status).toBe(201);
    expect((await call('POST', '/api/apps/tight/datatables/loose/materialize/')).status).toBe(200);
    expect(
      (
        await call('POST', '/api/apps/tight/datatables/loose/data/', [
          { id: 1, meta: { a: 1 } },
          { id: 2, meta: 'text' },
        ])
      ).status,
    ).toBe(201);
    const typed = { ...loose, fields: [loose.fields[0], { name: 'meta', type: 'object' }] };
    const refused = await call('PATCH', '/api/apps/tight/datatables/loose/', { json_schema: typed });
    expect(refused.status).toBe(400);
    expect(refused.body.warnings).toContain('1 row: values that the type object refuses in "meta" (for example 2).');
    expect((await call('PATCH', '/api/apps/tight/datatables/loose/data/2/', { meta: { b: 2 } })).status).toBe(200);
    expect((await call('PATCH', '/api/apps/tight/datatables/loose/', { json_schema: typed })).status).toBe(200);
  });

  it("checks the renamed column's values, and a new format likewise", async () => {
    const renamed = schemaWith(
      { constraints: { pattern: '[a-z]+' } },
      { name: 'email', type: 'string', format: 'email', 'x-rename-from': 'contact' },
    );
    const refused = await call('PATCH', TABLE, { json_schema: renamed });
    expect(refused.status).toBe(400);
    expect(refused.body.warnings).toContain('1 row: values that the format email refuses in "email" (for example 2).');
    expect((await call('PATCH', `${DATA}2/`, { contact: 'b@example.com' })).status).toBe(200);
    expect((await call('PATCH', TABLE, { json_schema: renamed })).status).toBe(200);
    expect((await call('GET', `${DATA}2/`)).body.data.email).toBe('b@example.com');
  });
});

/** The tenant schema of a site made through the API (test set-up reaches under the API here). */
async function schemaOf(app: TestApp, siteSlug: string): Promise<string> {
  const [site] = await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${siteSlug}`);
  return site!.schema_name;
}

describe('patterns saved before the linear-time rule', () => {
  let app: TestApp;
  let admin: string;
  let site: { slug: string; headers: Record<string, string> };
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: site.headers });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createSite(app, admin, 'Legacy patterns');
  });
  afterAll(async () => {
    await app.close();
  });

  it('keeps a table with a stored backreference pattern readable and refuses writes to that field, naming it', async () => {
    expect((await call('POST', '/api/apps/', { name: 'Old' })).status).toBe(201);
    expect((await call('POST', '/api/apps/old/datasources/', { name: 'Main', provider_type: 'flat_table' })).status).toBe(201);
    const schema = {
      fields: [
        { name: 'id', type: 'integer' },
        { name: 'twin', type: 'string', constraints: { pattern: '[a-z]+' } },
      ],
      primaryKey: ['id'],
    };
    expect((await call('POST', '/api/apps/old/datasources/main/datatables/', { name: 'pairs', json_schema: schema })).status).toBe(201);
    expect((await call('POST', '/api/apps/old/datatables/pairs/materialize/')).status).toBe(200);
    // As an older release would have stored it: the pattern needs backtracking.
    schema.fields[1]!.constraints!.pattern = '(a)\\1';
    const tenantSchema = await schemaOf(app, site.slug);
    await app.runtime.db.run(
      sql`update ${sql.identifier(tenantSchema)}.datatables set json_schema = ${JSON.stringify(schema)}::jsonb, schema_hash = ${'f'.repeat(64)} where name = 'pairs'`,
    );

    const DATA = '/api/apps/old/datatables/pairs/data/';
    expect((await call('GET', DATA)).status).toBe(200);
    expect((await call('GET', '/api/apps/old/datatables/pairs/')).status).toBe(200);
    expect((await call('POST', DATA, { id: 1 })).status).toBe(201);
    const refused = await call('POST', DATA, { id: 2, twin: 'aa' });
    expect(refused.status).toBe(400);
    expect(refused.body.details.twin[0]).toContain('cannot be used');
    const validated = await call('POST', '/api/apps/old/datatables/pairs/validate_data/', { data: [{ id: 3, twin: 'aa' }] });
    expect(validated.status).toBe(200);
    expect(validated.body.errors[0]).toContain("field 'twin'");
  });

  it('refuses a secret of a type whose stored schema needs backtracking with 400, not 500', async () => {
    const tenantSchema = await schemaOf(app, site.slug);
    await app.runtime.db.run(
      sql`insert into ${sql.identifier(tenantSchema)}.secret_types (slug, name, schema) values ('legacy', 'Legacy', ${JSON.stringify({ type: 'string', pattern: '(a)\\1' })}::jsonb)`,
    );
    const answer = await call('POST', '/api/secrets/', { key: 'OLD', value: 'aa', secret_type: 'legacy' });
    expect(answer.status).toBe(400);
    expect(answer.body.errors.secret_type[0]).toContain('cannot be used');
    expect((await call('GET', '/api/secret-types/legacy/')).status).toBe(200);
  });
});

describe('secret-type patterns', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, 'Secret patterns')).headers;
  });
  afterAll(async () => {
    await app.close();
  });

  it('checks secret values against pathological patterns in linear time', async () => {
    const schema = {
      type: 'object',
      properties: Object.fromEntries(Object.entries(PATHOLOGICAL).map(([name, pattern]) => [name, { type: 'string', pattern }])),
      patternProperties: { '^(x+x+)+y$': { type: 'string' } },
      additionalProperties: true,
    };
    expect((await call('POST', '/api/secret-types/', { slug: 'slow', name: 'Slow', schema })).status).toBe(201);

    const { result, ms } = await timed(async () => {
      const answers = [];
      // JSON Schema searches, so the near misses differ: `(.*a){20}` is missed by 19 a's and 9,981 b's.
      const misses = { nested: NEAR_MISS, alternation: NEAR_MISS, repeated: `${'a'.repeat(19)}${'b'.repeat(LENGTH - 19)}` };
      for (const [name, value] of Object.entries(misses)) {
        answers.push(
          await call('POST', '/api/secrets/', { key: `MISS_${name.toUpperCase()}`, value: { [name]: value }, secret_type: 'slow' }),
        );
      }
      const keyed = await call('POST', '/api/secrets/', {
        key: 'KEYED',
        value: { [`${'x'.repeat(LENGTH)}`]: 'fine' },
        secret_type: 'slow',
      });
      const matching = await call('POST', '/api/secrets/', {
        key: 'MATCHING',
        value: Object.fromEntries(Object.keys(PATHOLOGICAL).map((name) => [name, MATCHING])),
        secret_type: 'slow',
      });
      return { answers, keyed, matching };
    });

    expect(ms).toBeLessThan(BOUND_MS);
    for (const answer of result.answers) {
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body)).toContain('must match pattern');
    }
    expect(result.keyed.status).toBe(201);
    expect(result.matching.status).toBe(201);
  });

  it('searches anywhere in the value, as JSON Schema says', async () => {
    expect(
      (await call('POST', '/api/secret-types/', { slug: 'has-digit', name: 'Digit', schema: { type: 'string', pattern: '\\d' } })).status,
    ).toBe(201);
    expect((await call('POST', '/api/secrets/', { key: 'WITH_DIGIT', value: 'abc1def', secret_type: 'has-digit' })).status).toBe(201);
    expect((await call('POST', '/api/secrets/', { key: 'NO_DIGIT', value: 'abcdef', secret_type: 'has-digit' })).status).toBe(400);
  });

  it('refuses secret types whose patterns need backtracking, naming the schema and the pattern', async () => {
    const cases = [
      { type: 'string', pattern: '^(a)\\1$' },
      { type: 'object', patternProperties: { '(?=x)x': { type: 'string' } } },
      { type: 'object', properties: { deep: { type: 'array', items: { type: 'string', pattern: '(?<n>a)\\k<n>' } } } },
    ];
    for (const [index, schema] of cases.entries()) {
      const answer = await call('POST', '/api/secret-types/', { slug: `backtracking-${index}`, name: 'B', schema });
      expect(answer.status, JSON.stringify(schema)).toBe(400);
      expect(answer.body.errors.schema[0]).toMatch(/^The pattern ".+" cannot be used: /);
    }
    const replaced = await call('PUT', '/api/secret-types/has-digit/', { name: 'Digit', schema: { type: 'string', pattern: '(\\d)\\1' } });
    expect(replaced.status).toBe(400);
    expect(replaced.body.errors.schema).toBeDefined();
  });

  it("does not run patternProperties over the schema's own property names on V8 (ajv's strict check)", async () => {
    const schema = {
      type: 'object',
      properties: { [`${'a'.repeat(40)}!`]: { type: 'string' } },
      patternProperties: { '^(a+)+$': { type: 'string' } },
    };
    const { result, ms } = await timed(() => call('POST', '/api/secret-types/', { slug: 'matching-names', name: 'M', schema }));
    expect(ms).toBeLessThan(BOUND_MS);
    expect(result.status).toBe(201);
  });
});
