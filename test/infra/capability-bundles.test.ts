// Bundles API functions exactly as `cdk synth` does: two from the same entry, one for a group that
// uses the object store, document libraries and mail and one for a group that uses none of them
// (only the first may carry the S3 and SES clients and the Graph client), and the docs group, whose
// asset carries the OpenAPI document of the app's groups written beside its code. No Lambda carries
// the SDK's credential sources other than the environment.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointGroups, type EndpointGroup } from '#functions/groups.ts';
import { buildTesseraApp } from '#infra/aws/tessera-app.ts';
import { serviceNameOf, tesseraFunctions } from './synth.ts';

const data = endpointGroups.find((group) => group.name === 'data')!;
const docs = endpointGroups.find((group) => group.name === 'docs')!;
const withObjectStore: Pick<EndpointGroup, 'name' | 'entry' | 'routes' | 'uses'> = {
  name: 'files',
  entry: data.entry,
  routes: [],
  uses: ['object-store', 'document-library', 'email'],
};

/** Names only the S3 and SES clients' code carries (operation shapes keep their names through minification). */
const S3_MARKER = 'DeleteObjectsRequest';
const SES_MARKER = 'SendEmailRequest';
/** The Graph call only the document library's uploads make. */
const GRAPH_MARKER = 'createUploadSession';
/** The STS operation of the SDK's web-identity credentials, a source of its default chain. */
const CREDENTIAL_CHAIN_MARKER = 'AssumeRoleWithWebIdentity';
/** A message only the records list's query parser carries. */
const DATA_LIST_MARKER = 'so it cannot be searched';

describe('bundles per capability', () => {
  let workDir: string;
  const bundles = new Map<string, string>();
  /** Each function's asset folder, by service name. */
  const assetDirs = new Map<string, string>();

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'tessera-capability-bundles-'));
    const outdir = path.join(workDir, 'cdk.out');
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': ['TesseraApi'] } });
    const { api } = buildTesseraApp(app, [data, withObjectStore, docs]);
    app.synth();
    for (const fn of Object.values(tesseraFunctions(Template.fromStack(api)))) {
      const s3Key = (fn.Properties!.Code as { S3Key: string }).S3Key;
      // index.mjs and its chunks: the SDK clients are imported lazily, so they live in chunks.
      const assetDir = path.join(outdir, `asset.${s3Key.replace(/\.zip$/, '')}`);
      assetDirs.set(serviceNameOf(fn), assetDir);
      const files = (await readdir(assetDir)).filter((file) => file.endsWith('.mjs'));
      const texts = await Promise.all(files.map((file) => readFile(path.join(assetDir, file), 'utf8')));
      bundles.set(serviceNameOf(fn), texts.join('\n'));
    }
  }, 120_000);

  afterAll(() => rm(workDir, { recursive: true, force: true }));

  it('leaves the S3, SES and Graph clients out of a group that uses neither the object store, document libraries nor mail', () => {
    expect(bundles.get('tessera-data')).toBeDefined();
    expect(bundles.get('tessera-data')).not.toContain(S3_MARKER);
    expect(bundles.get('tessera-data')).not.toContain(SES_MARKER);
    expect(bundles.get('tessera-data')).not.toContain(GRAPH_MARKER);
  });

  it('bundles them into a group that uses all three', () => {
    expect(bundles.get('tessera-files')).toContain(S3_MARKER);
    expect(bundles.get('tessera-files')).toContain(SES_MARKER);
    expect(bundles.get('tessera-files')).toContain(GRAPH_MARKER);
  });

  it('gives the SDK clients only the environment as a credential source', () => {
    expect([...bundles.keys()]).toEqual(expect.arrayContaining(['tessera-data', 'tessera-files', 'tessera-docs']));
    for (const [name, text] of bundles) expect(text.includes(CREDENTIAL_CHAIN_MARKER), name).toBe(false);
  });

  it("writes the OpenAPI document of the app's groups beside the docs code, and no other group's routes into it", async () => {
    const dir = assetDirs.get('tessera-docs')!;
    const document = JSON.parse(await readFile(path.join(dir, 'openapi.json'), 'utf8')) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toContain('/api/apps/{app_slug}/datatables/{name}/data/');
    expect(await readFile(path.join(dir, 'openapi.yaml'), 'utf8')).toMatch(/^openapi: 3\.1/);
    // A message of the records list: minification keeps string literals, so its absence means the code is gone.
    expect(bundles.get('tessera-data')).toContain(DATA_LIST_MARKER);
    expect(bundles.get('tessera-docs')).not.toContain(DATA_LIST_MARKER);
  });
});
