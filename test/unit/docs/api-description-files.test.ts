// The generated document passes `redocly lint` (its recommended rules, redocly.yaml), and the typed
// client's checked-in document and types are what `npm run client:generate` would write today: a
// route table change without a regenerated client fails here.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiDocumentText, CLIENT_FILES, generateClientTypes } from '#infra/local/api-client.ts';

const run = promisify(execFile);

describe('the API description files', () => {
  let scratch: string;
  let documentPath: string;
  let documentText: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'tessera-openapi-'));
    documentPath = path.join(scratch, 'openapi.json');
    documentText = apiDocumentText();
    await writeFile(documentPath, documentText);
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('passes redocly lint without errors', async () => {
    // Act: exit code 1 on any error; the JSON report counts them.
    const { stdout } = await run(
      path.resolve('node_modules/.bin/redocly'),
      ['lint', documentPath, '--config', path.resolve('redocly.yaml'), '--format', 'json'],
      { maxBuffer: 64 * 1024 * 1024 },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`redocly lint failed:\n${error.stdout ?? ''}\n${error.stderr ?? ''}`.slice(0, 4000));
    });
    // Assess
    const report = JSON.parse(stdout) as { totals: { errors: number }; problems: Array<{ severity: string; message: string }> };
    expect(report.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 60_000);

  it('keeps the client package’s document in step with the route tables', async () => {
    expect(await readFile(CLIENT_FILES.document, 'utf8'), 'run `npm run client:generate`').toBe(documentText);
  });

  it('keeps the client package’s generated types in step with the document', async () => {
    // Act
    const typesPath = path.join(scratch, 'schema.d.ts');
    await generateClientTypes(documentPath, typesPath);
    // Assess
    expect(await readFile(CLIENT_FILES.types, 'utf8'), 'run `npm run client:generate`').toBe(await readFile(typesPath, 'utf8'));
  }, 60_000);
});
