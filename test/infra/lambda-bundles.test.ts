// Builds every endpoint group's Lambda bundle with `buildLambdaBundle` (what CDK deploys) and runs it
// as the Lambda runtime would: a fresh plain `node` imports index.mjs and calls the handler with API
// Gateway events, on the test database, with the signing key read from a Secrets Manager stand-in.
// Modules imported lazily live in chunk files beside index.mjs; a chunk missing or broken fails here
// (the password dictionaries, the database driver, the SDK client and its credential providers).
import { createSocket } from 'node:dgram';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiDescriptionJson, apiDescriptionYaml } from '#functions/docs/api-description.ts';
import { endpointGroups } from '#functions/groups.ts';
import { buildLambdaBundle, groupBundleOptions, type LambdaBundle } from '#infra/bundling.ts';
import { generatePrivateJwk, signingKeysFromJwk } from '#shared/auth/signing-keys.ts';
import { TokenIssuer } from '#shared/auth/tokens.ts';
import { loadConfig } from '#shared/config.ts';
import { connectPglite, type Database } from '#shared/db/database.ts';
import { users } from '#shared/db/platform-schema.ts';
import {
  BUNDLE_FIXTURE,
  BUNDLE_SCRATCH_ROOT,
  bodyText,
  bundleSecrets,
  firstRequestEvent,
  invokeBundle,
  lambdaEnvironment,
  prepareBundleDatabase,
  publicRequest,
  seedThroughBundles,
  signedRequest,
  SECRETS_KEY_SECRET_ID,
  SIGNING_KEY_SECRET_ID,
  startSecretsStandIn,
  type BundleDatabase,
  type SecretsStandIn,
} from '#test/support/lambda-bundles.ts';
import { createTestDatabase, testDriver, type TestDatabase } from '#test/support/test-database.ts';

const MAX_IMPORT_BYTES = 1024 * 1024;
const KEEP_EMBEDDED_DATABASE = { 'process.env.TESSERA_BUNDLE_EMBEDDED_DATABASE': JSON.stringify('included') };
/** Libraries and data only some requests need: loaded on first use, so no cold import reads or runs them. */
const ON_DEMAND_LIBRARIES = [
  'shared/http/bundled-mime-table.ts',
  'node_modules/file-type/',
  'node_modules/ajv/',
  'node_modules/ajv-formats/',
  'node_modules/yauzl/',
  'node_modules/tar-stream/',
];

describe('Lambda bundles, run as deployed', () => {
  let scratch: string;
  let secrets: SecretsStandIn;
  let database: BundleDatabase;
  let testDatabase: TestDatabase | undefined;
  let token: string;
  const bundles = new Map<string, LambdaBundle>();

  function env(): NodeJS.ProcessEnv {
    return lambdaEnvironment(secrets.url, database, { LOG_LEVEL: 'SILENT' });
  }

  function bundleDir(group: string): string {
    return bundles.get(group)!.outdir;
  }

  beforeAll(async () => {
    await mkdir(BUNDLE_SCRATCH_ROOT, { recursive: true });
    scratch = await mkdtemp(path.join(BUNDLE_SCRATCH_ROOT, 'test-'));
    const dataDir = path.join(scratch, 'data');
    let db: Database;
    if (testDriver === 'postgres') {
      testDatabase = await createTestDatabase();
      db = testDatabase.db;
      database = { url: testDatabase.url, dataDir };
    } else {
      // The bundle opens PGlite under DATA_DIR itself, once this process has let go of it.
      db = await connectPglite(path.join(dataDir, 'pglite'));
      database = { dataDir };
    }
    const config = loadConfig({ DATA_DIR: dataDir, ADMIN_PASSWORD: 'bundle-admin-password', PASSWORD_SCRYPT_COST: '1024' });
    await prepareBundleDatabase(db, config);
    const [admin] = await db.query((orm) =>
      orm.select({ uuid: users.uuid, username: users.username }).from(users).where(eq(users.username, 'admin')),
    );
    const jwk = await generatePrivateJwk();
    const issuer = new TokenIssuer(await signingKeysFromJwk(jwk), {
      issuer: config.tokens.issuer,
      accessTtlSeconds: 900,
      refreshTtlSeconds: 3600,
    });
    token = (await issuer.issuePair(admin!)).access.token;
    if (testDriver === 'pglite') await db.close();
    secrets = await startSecretsStandIn(bundleSecrets(jwk));
    for (const group of endpointGroups) {
      const options = groupBundleOptions(group, endpointGroups);
      bundles.set(
        group.name,
        buildLambdaBundle({
          entry: group.entry,
          outdir: path.join(scratch, group.name),
          ...options,
          // A deployed bundle carries no PGlite (a Lambda reads Aurora); on the PGlite run the bundles
          // keep it, so they are tested on the same database as the rest. The define is all that differs.
          ...(testDriver === 'pglite' ? { define: { ...options.define, ...KEEP_EMBEDDED_DATABASE } } : {}),
        }),
      );
    }
  }, 300_000);

  afterAll(async () => {
    await secrets?.close();
    await testDatabase?.dispose();
    await rm(scratch, { recursive: true, force: true });
  });

  it('reads at most 1 MB on import in every group, and leaves the lazily loaded modules in chunks', () => {
    for (const group of endpointGroups) {
      const bundle = bundles.get(group.name)!;
      expect(bundle.importBytes, group.name).toBeLessThanOrEqual(MAX_IMPORT_BYTES);
      // The database driver is imported on first use, never by the import itself.
      const lazy = bundle.files.filter((file) => !file.loadedOnImport);
      expect(lazy.length, group.name).toBeGreaterThan(0);
    }
    // The password word lists are read from the database: a bundle carries zxcvbn's keyboard graphs
    // and English messages from the language packages, and none of their lists (`*.json.mjs`).
    const consoleInputs = bundles.get('console')!.files.flatMap((file) => file.inputs.map((input) => input.path));
    expect(consoleInputs.filter((input) => input.endsWith('@zxcvbn-ts/language-en/dist/translations.mjs'))).toHaveLength(1);
    for (const group of endpointGroups) {
      const inputs = bundles.get(group.name)!.files.flatMap((file) => file.inputs.map((input) => input.path));
      const lists = inputs.filter((input) => input.includes('@zxcvbn-ts/language-') && input.endsWith('.json.mjs'));
      expect(
        lists.filter((input) => !input.endsWith('/adjacencyGraphs.json.mjs')),
        group.name,
      ).toEqual([]);
    }
    for (const group of endpointGroups) {
      const readOnImport = bundles
        .get(group.name)!
        .files.filter((file) => file.loadedOnImport)
        .flatMap((file) => file.inputs.map((input) => input.path));
      const eager = ON_DEMAND_LIBRARIES.filter((library) => readOnImport.some((input) => input.includes(library)));
      expect(eager, group.name).toEqual([]);
    }
    // The pattern engine (re2js and the XML Schema translation): the secrets group needs it only to
    // check a secret type's schema, the data group only for a table schema that declares a pattern.
    for (const group of ['console', 'data', 'secrets']) {
      const onImport = bundles
        .get(group)!
        .files.filter((file) => file.loadedOnImport)
        .flatMap((file) => file.inputs.map((input) => input.path));
      expect(
        onImport.filter((input) => input.includes('node_modules/re2js/') || input.startsWith('shared/text/xsd-patterns')),
        group,
      ).toEqual([]);
    }
  });

  it("imports node's HTTP clients on the first outgoing call, not with the handler", () => {
    // Webhooks are called by the event workers; the groups that fire events only import that code.
    for (const group of endpointGroups) {
      const bundle = bundles.get(group.name)!;
      const readOnImport = new Set(bundle.files.filter((file) => file.loadedOnImport).map((file) => path.join(bundle.outdir, file.name)));
      const builtins = Object.entries(bundle.metafile.outputs)
        .filter(([output]) => readOnImport.has(path.resolve(output)))
        .flatMap(([, output]) => output.imports.filter((imported) => imported.external).map((imported) => imported.path));
      expect(builtins, group.name).toContain('node:crypto');
      expect(
        builtins.filter((builtin) => /^(node:)?(http|https|tls)$/.test(builtin)),
        group.name,
      ).toEqual([]);
    }
  });

  it('carries no code a Lambda never runs: the local state machine runner, JSONata, the SDK browser user-agent parser', () => {
    for (const group of endpointGroups) {
      const inputs = bundles.get(group.name)!.files.flatMap((file) => file.inputs.map((input) => input.path));
      expect(
        inputs.filter((input) => /node_modules\/(aws-local-stepfunctions|jsonata|bowser)\//.test(input)),
        group.name,
      ).toEqual([]);
    }
  });

  it('carries no embedded database as deployed: the PGlite driver, its session and statement cache stay local', () => {
    const data = endpointGroups.find((group) => group.name === 'data')!;
    const deployed = buildLambdaBundle({
      entry: data.entry,
      outdir: path.join(scratch, 'deployed-data'),
      ...groupBundleOptions(data, endpointGroups),
    });
    const inputs = deployed.files.flatMap((file) => file.inputs.map((input) => input.path));
    expect(inputs.filter((input) => /drizzle-orm\/pglite\/|shared\/db\/pglite-prepared\.ts/.test(input))).toEqual([]);
    expect(inputs.filter((input) => input.includes('drizzle-orm/postgres-js/')).length).toBeGreaterThan(0);
  });

  it('console and data: check passwords against the word lists in the database, create a user, an organization, a site, an app', async () => {
    // Act
    const seeded = await seedThroughBundles(bundleDir, env(), token);
    // Assess
    const [weak, strong, organization, site] = seeded.console.results;
    expect(weak!.statusCode).toBe(400);
    expect(weak!.body).toContain('too easy to guess'); // zxcvbn ranked it from the word lists in the database
    expect(strong!.statusCode, strong!.body).toBe(201);
    expect(organization!.statusCode, organization!.body).toBe(201);
    expect(JSON.parse(organization!.body!)).toMatchObject({ data: { slug: BUNDLE_FIXTURE.organizationSlug } });
    expect(site!.statusCode, site!.body).toBe(201);
    expect(JSON.parse(site!.body!)).toMatchObject({ slug: BUNDLE_FIXTURE.siteSlug });
    expect(seeded.data.results[0]!.statusCode, seeded.data.results[0]!.body).toBe(201);
    expect(secrets.reads).toContain(SIGNING_KEY_SECRET_ID); // the SDK client ran from its chunk
  }, 300_000);

  it('data: loads the pattern engine for a table schema that declares a pattern, from a request or from the database', async () => {
    // Arrange
    const { appSlug, siteSlug } = BUNDLE_FIXTURE;
    const schema = { fields: [{ name: 'code', type: 'string', constraints: { pattern: '[A-Z]{3}' } }] };
    const records = `/api/apps/${appSlug}/datatables/codes/data/`;
    const as = (method: string, url: string, body?: unknown) => signedRequest(method, url, token, body, siteSlug);
    // Act: defined, materialized and written in one process; written again in a fresh one, which reads the schema from the database
    const defined = await invokeBundle(
      bundleDir('data'),
      [
        as('POST', `/api/apps/${appSlug}/datasources/`, { name: 'Codes', provider_type: 'flat_table' }),
        as('POST', `/api/apps/${appSlug}/datasources/codes/datatables/`, { name: 'codes', json_schema: schema }),
        as('POST', `/api/apps/${appSlug}/datatables/codes/materialize/`),
        as('POST', records, { code: 'ABC' }),
      ],
      env(),
    );
    const written = await invokeBundle(
      bundleDir('data'),
      [as('POST', records, { code: 'abc' }), as('POST', records, { code: 'XYZ' })],
      env(),
    );
    // Assess
    expect(
      defined.results.map((answer) => answer.statusCode),
      JSON.stringify(defined.results.map((answer) => answer.body)),
    ).toEqual([201, 201, 200, 201]);
    expect(
      written.results.map((answer) => answer.statusCode),
      written.results[0]!.body,
    ).toEqual([400, 201]);
    expect(written.results[0]!.body).toContain('does not match the pattern');
  }, 300_000);

  it("secrets: checks values against a secret type's schema and pattern, sealed with the key from Secrets Manager", async () => {
    // Arrange
    const as = (method: string, url: string, body?: unknown) => signedRequest(method, url, token, body, BUNDLE_FIXTURE.siteSlug);
    const schema = { type: 'string', pattern: '^[A-Z]{3}$' };
    // Act
    const run = await invokeBundle(
      bundleDir('secrets'),
      [
        as('POST', '/api/secret-types/', { slug: 'codes', name: 'Codes', schema }),
        as('POST', '/api/secrets/', { key: 'bad_code', value: 'abc', secret_type: 'codes' }),
        as('POST', '/api/secrets/', { key: 'good_code', value: 'XYZ', secret_type: 'codes' }),
        as('GET', '/api/secrets/good_code/'),
      ],
      env(),
    );
    // Assess
    expect(
      run.results.map((answer) => answer.statusCode),
      JSON.stringify(run.results.map((answer) => answer.body)),
    ).toEqual([201, 400, 201, 200]);
    expect(JSON.parse(run.results[3]!.body!)).toMatchObject({ key: 'good_code', value: 'XYZ', secret_type: 'codes' });
    expect(secrets.reads).toContain(SECRETS_KEY_SECRET_ID);
  }, 300_000);

  it('docs: serves the explorer pages and the vendor files copied beside the bundle', async () => {
    // Act
    const paths = ['/api/docs/', '/api/docs/swagger-ui-bundle.js', '/api/docs/swagger-ui.css', '/api/redoc/redoc.standalone.js'];
    const run = await invokeBundle(bundleDir('docs'), paths.map(publicRequest), env());
    // Assess
    for (const [index, answer] of run.results.entries()) {
      expect(answer.statusCode, paths[index]).toBe(200);
      expect(answer.body!.length, paths[index]).toBeGreaterThan(300);
    }
  }, 300_000);

  it('docs: serves the OpenAPI document written beside the bundle, and carries no other group', async () => {
    // Act
    const run = await invokeBundle(bundleDir('docs'), ['/api/schema/', '/api/schema/?format=yaml'].map(publicRequest), env());
    // Assess: the texts the dev server builds from the route tables, read from files
    const [json, yaml] = run.results;
    expect(json!.statusCode, json!.body).toBe(200);
    expect(json!.body).toBe(await apiDescriptionJson());
    expect(yaml!.statusCode, yaml!.body).toBe(200);
    expect(bodyText(yaml!)).toBe(await apiDescriptionYaml());
    const inputs = bundles.get('docs')!.files.flatMap((file) => file.inputs.map((input) => input.path));
    const otherGroups = endpointGroups.filter((group) => group.name !== 'docs').map((group) => `functions/${group.name}/`);
    expect(inputs.filter((input) => otherGroups.some((folder) => input.startsWith(folder)))).toEqual([]);
    expect(inputs.filter((input) => /node_modules\/(@asteasolutions\/zod-to-openapi|yaml|@zxcvbn-ts)\//.test(input))).toEqual([]);
  }, 300_000);

  it('traces a request with the X-Ray SDK and semver as bundled, and carries only the semver function it calls', async () => {
    // Arrange: the X-Ray daemon's UDP port, and what Lambda and our CDK set for a traced function
    const daemon = createSocket('udp4');
    const segments: string[] = [];
    daemon.on('message', (message) => segments.push(message.toString('utf8')));
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    const traceId = '1-6740a1b2-0000000000000000000000b1';
    try {
      // Act
      const run = await invokeBundle(
        bundleDir('auth'),
        [firstRequestEvent(endpointGroups.find((group) => group.name === 'auth')!, token)],
        lambdaEnvironment(secrets.url, database, {
          LOG_LEVEL: 'SILENT',
          POWERTOOLS_SERVICE_NAME: 'tessera-auth',
          POWERTOOLS_METRICS_NAMESPACE: 'TesseraBundleTest',
          LAMBDA_TASK_ROOT: '/var/task',
          _HANDLER: 'index.handler',
          AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
          AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
          _X_AMZN_TRACE_ID: `Root=${traceId};Parent=53995c3f42cd8ad8;Sampled=1`,
        }),
      );
      // Assess: cls-hooked chose its context tracking with the bundled `gte`, and the segment left
      expect(run.results[0]!.statusCode, run.results[0]!.body).toBe(200);
      await vi.waitFor(() => expect(segments.length).toBeGreaterThan(0), { timeout: 5_000 });
      const documents = segments.map((message) => JSON.parse(message.slice(message.indexOf('\n') + 1)) as Record<string, unknown>);
      expect(documents.find((document) => document.name === '## index.handler')).toMatchObject({ trace_id: traceId });
    } finally {
      daemon.close();
    }
    for (const group of endpointGroups) {
      const inputs = bundles.get(group.name)!.files.flatMap((file) => file.inputs.map((input) => input.path));
      expect(inputs, group.name).toContain('node_modules/semver/functions/gte.js');
      expect(
        inputs.filter((input) => /node_modules\/(cls-hooked\/node_modules\/)?semver\/(index|semver|classes\/range)\.js$/.test(input)),
        group.name,
      ).toEqual([]);
    }
  }, 300_000);

  for (const group of endpointGroups) {
    it(`${group.name}: answers a signed-in first request from the database`, async () => {
      // Act
      const run = await invokeBundle(bundleDir(group.name), [firstRequestEvent(group, token)], env());
      // Assess
      const [answer] = run.results;
      expect(answer!.statusCode, answer!.body).toBe(200);
      expect(() => JSON.parse(answer!.body!)).not.toThrow();
    }, 300_000);
  }
});
