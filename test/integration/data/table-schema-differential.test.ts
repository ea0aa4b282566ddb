// The project's Table Schema corpus through the API and through the official `tableschema`
// implementation (1.12.6) as an oracle: every verdict on a schema or a value must agree, or be one of
// the deliberate differences the README lists. On the way, validate_data and a write of the same
// record must give one verdict, and a value read back must be one the oracle accepts.
import { readFile } from 'node:fs/promises';
import tableschema from 'tableschema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';
import { DELIBERATE_DIFFERENCES, FIELD_CASES, type FieldCase } from '#test/support/table-schema-corpus.ts';

type Verdict = 'valid' | 'invalid';

const schemaOf = (fieldCase: FieldCase) => ({ fields: [{ name: 'id', type: 'integer' }, fieldCase.field], primaryKey: ['id'] });

async function oracleSchema(fieldCase: FieldCase) {
  try {
    const schema = await tableschema.Schema.load(schemaOf(fieldCase));
    return schema.valid ? schema : undefined;
  } catch {
    return undefined;
  }
}

function oracleValue(schema: NonNullable<Awaited<ReturnType<typeof oracleSchema>>>, value: unknown): Verdict {
  try {
    schema.getField('v')!.castValue(value);
    return 'valid';
  } catch {
    return 'invalid';
  }
}

/** One line per disagreement, as the README table names it. */
const line = (fieldCase: string, value: string | undefined, tessera: Verdict) => `${fieldCase} ${value ?? '(schema)'} → ${tessera}`;

describe.each(['flat_table', 'jsonb'])('the Table Schema corpus on %s tables against tableschema 1.12.6', (provider) => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const found: string[] = [];
  const writeVerdicts: string[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, 'Corpus Site')).headers;
    expect((await call('POST', '/api/apps/', { name: 'Corpus' })).status).toBe(201);
    expect((await call('POST', '/api/apps/corpus/datasources/', { name: 'Main', provider_type: provider })).status).toBe(201);
  });
  afterAll(async () => {
    await app.close();
  });

  // Some 400 requests against a dev server: a generous bound, not a timing.
  it('agrees with the oracle on every schema and value, but for the listed differences', { timeout: 300_000 }, async () => {
    for (const [index, fieldCase] of FIELD_CASES.entries()) {
      const name = `c${index}`;
      const created = await call('POST', '/api/apps/corpus/datasources/main/datatables/', { name, json_schema: schemaOf(fieldCase) });
      expect([201, 400], `${fieldCase.id}: ${JSON.stringify(created.body)}`).toContain(created.status);
      const oracle = await oracleSchema(fieldCase);
      const ours: Verdict = created.status === 201 ? 'valid' : 'invalid';
      if (ours !== (oracle ? 'valid' : 'invalid')) found.push(line(fieldCase.id, undefined, ours));
      if (created.status !== 201) {
        expect(created.body.json_schema.length, fieldCase.id).toBeGreaterThan(0);
        continue;
      }
      expect((await call('POST', `/api/apps/corpus/datatables/${name}/materialize/`)).status).toBe(200);
      for (const [at, value] of fieldCase.values.entries()) {
        const text = JSON.stringify(value);
        const record = { id: at + 1, v: value };
        const checked = await call('POST', `/api/apps/corpus/datatables/${name}/validate_data/`, { data: [record] });
        expect(checked.status).toBe(200);
        const written = await call('POST', `/api/apps/corpus/datatables/${name}/data/`, record);
        expect([201, 400], `${fieldCase.id} ${text}: ${JSON.stringify(written.body)}`).toContain(written.status);
        const verdict: Verdict = checked.body.is_valid ? 'valid' : 'invalid';
        if ((written.status === 201) !== checked.body.is_valid) writeVerdicts.push(`${fieldCase.id} ${text}`);
        const oracleVerdict = oracle ? oracleValue(oracle, value) : undefined;
        if (oracle && verdict !== oracleVerdict) found.push(line(fieldCase.id, text, verdict));
        if (written.status === 201 && oracle && oracleVerdict === 'valid') {
          // The value as answered is the standard's lexical form: the oracle takes it as it is.
          const answered = written.body.data.v;
          if (answered !== null && oracleValue(oracle, answered) === 'invalid')
            found.push(`${fieldCase.id} ${text} answered as ${JSON.stringify(answered)} → refused by the oracle`);
        }
      }
    }
    expect(writeVerdicts, 'validate_data and the write disagree').toEqual([]);
    const listed = DELIBERATE_DIFFERENCES.map((d) => line(d.case, d.value, d.tessera));
    expect(found.sort()).toEqual(listed.sort());
  });

  it('shows every deliberate difference in the README', async () => {
    const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
    for (const difference of DELIBERATE_DIFFERENCES) {
      expect(readme, difference.case).toContain(
        `| \`${difference.case}\` | ${difference.value === undefined ? '(schema)' : `\`${difference.value}\``} | ${difference.tessera} |`,
      );
    }
  });
});
