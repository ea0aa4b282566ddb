// Issue 15 (6): each endpoint group's Lambda bundle as deployed (`buildLambdaBundle`, what CDK runs):
// the bytes a cold import reads against the 1 MB target, then, in fresh `node` processes, the cold
// import alone and the import plus a first signed-in request (PostgreSQL only) against 100 ms, next
// to the import of a trivial ESM file measured the same way.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { endpointGroups } from '#functions/groups.ts';
import { buildLambdaBundle, groupBundleOptions, lambdaEsbuildOptions, type LambdaBundle } from '#infra/bundling.ts';
import { generatePrivateJwk, signingKeysFromJwk } from '#shared/auth/signing-keys.ts';
import { TokenIssuer } from '#shared/auth/tokens.ts';
import { users } from '#shared/db/platform-schema.ts';
import {
  bundleSecrets,
  firstRequestEvent,
  invokeBundle,
  lambdaEnvironment,
  prepareBundleDatabase,
  seedThroughBundles,
  startSecretsStandIn,
  type BundleDatabase,
} from '#test/support/lambda-bundles.ts';
import { BENCH_ADMIN, benchConfig, openBenchDatabase } from './bench-database.ts';
import { fixed, heading, median, note, ratioAgainst, table } from './report.ts';
import { benchSettings } from './settings.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT_DIR = path.join(ROOT, '.bench', 'bundles');
const TARGET_KB = 1024;
const TARGET_MS = 100;

interface Built {
  name: string;
  bundle: LambdaBundle;
}

/** Bytes per npm package (or `(own code)`) among the files read on import, largest first. */
function partsReadOnImport(bundle: LambdaBundle): Array<[string, number]> {
  const totals = new Map<string, number>();
  for (const file of bundle.files.filter((candidate) => candidate.loadedOnImport)) {
    for (const input of file.inputs) {
      const owner = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input.path)?.[1] ?? '(own code)';
      totals.set(owner, (totals.get(owner) ?? 0) + input.bytes);
    }
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

function printSizes(built: readonly Built[]): void {
  note(
    `esbuild ${lambdaEsbuildOptions.format}, ${lambdaEsbuildOptions.target}, minify ${lambdaEsbuildOptions.minify}, splitting ${lambdaEsbuildOptions.splitting}, ` +
      `external ${lambdaEsbuildOptions.external.join(', ')} (buildLambdaBundle) into .bench/bundles/<group>/`,
  );
  note('"read on import": index.mjs and the chunks it imports statically; the other chunks load on first use');
  table(
    ['group', 'read on import KB', `vs ${TARGET_KB} KB target`, 'all files KB', 'files', 'largest parts read on import (KB)'],
    built.map(({ name, bundle }) => [
      name,
      fixed(bundle.importBytes / 1024),
      ratioAgainst(bundle.importBytes / 1024 / TARGET_KB, 1, false),
      fixed(bundle.totalBytes / 1024),
      String(bundle.files.length),
      partsReadOnImport(bundle)
        .slice(0, 4)
        .map(([owner, bytes]) => `${owner} ${fixed(bytes / 1024, 0)}`)
        .join(', '),
    ]),
  );
}

/** Cold imports, interleaved so a slow moment of the machine hits every target alike. */
async function printColdImports(
  targets: ReadonlyArray<{ name: string; dir: string }>,
  env: NodeJS.ProcessEnv,
  runs: number,
): Promise<void> {
  const times = new Map<string, Array<{ ms: number; cpuMs: number }>>(targets.map((target) => [target.name, []]));
  await invokeBundle(targets[0]!.dir, [], env); // the first process start after writing files pays for the page cache
  for (let round = 0; round < runs; round += 1) {
    for (const target of targets) {
      const run = await invokeBundle(target.dir, [], env);
      times.get(target.name)!.push({ ms: run.importMs, cpuMs: run.importCpuMs });
    }
  }
  const baselineMs = median(times.get(targets[0]!.name)!.map((sample) => sample.ms));
  note(
    `cold import: median of ${runs} fresh \`node\` processes each, timing \`await import(index.mjs)\` (test/support/bundle-invoke.mjs);`,
  );
  note("CPU ms is the process's user + system time over the import: what a busy machine inflates least");
  table(
    ['module', 'median ms', 'min ms', 'max ms', 'median CPU ms', 'minus baseline ms', `vs ${TARGET_MS} ms target`],
    targets.map((target, index) => {
      const ms = times.get(target.name)!.map((sample) => sample.ms);
      return [
        target.name,
        fixed(median(ms)),
        fixed(Math.min(...ms)),
        fixed(Math.max(...ms)),
        fixed(median(times.get(target.name)!.map((sample) => sample.cpuMs))),
        index === 0 ? '' : fixed(median(ms) - baselineMs),
        index === 0 ? '' : ratioAgainst(median(ms) / TARGET_MS, 1, false),
      ];
    }),
  );
}

/**
 * Import plus a first signed-in request per group, in fresh processes, on a fresh PostgreSQL
 * database seeded through the bundles (a site and an app, so tenant routes answer 200).
 */
async function printFirstRequests(built: readonly Built[], runs: number): Promise<void> {
  const bench = await openBenchDatabase(2);
  const jwk = await generatePrivateJwk();
  const secrets = await startSecretsStandIn(bundleSecrets(jwk));
  try {
    const config = benchConfig(bench.dataDir);
    await prepareBundleDatabase(bench.db, config);
    const [admin] = await bench.db.query((orm) =>
      orm.select({ uuid: users.uuid, username: users.username }).from(users).where(eq(users.username, BENCH_ADMIN.username)),
    );
    const issuer = new TokenIssuer(await signingKeysFromJwk(jwk), {
      issuer: config.tokens.issuer,
      accessTtlSeconds: 3600,
      refreshTtlSeconds: 3600,
    });
    const token = (await issuer.issuePair(admin!)).access.token;
    const database: BundleDatabase = { url: bench.url, dataDir: bench.dataDir };
    // As deployed: INFO logs with a line per request, to stdout.
    const env = lambdaEnvironment(secrets.url, database, { LOG_LEVEL: 'INFO', DATABASE_POOL_MAX: '2' });
    const dirOf = (name: string) => built.find((entry) => entry.name === name)!.bundle.outdir;
    await seedThroughBundles(dirOf, env, token);

    const samples = new Map<string, Array<{ importMs: number; requestMs: number; cpuMs: number; status: number }>>(
      built.map(({ name }) => [name, []]),
    );
    for (let round = 0; round < runs; round += 1) {
      for (const { name } of built) {
        const group = endpointGroups.find((candidate) => candidate.name === name)!;
        const run = await invokeBundle(dirOf(name), [firstRequestEvent(group, token)], env);
        const [answer] = run.results;
        samples
          .get(name)!
          .push({ importMs: run.importMs, requestMs: answer!.ms, cpuMs: run.importCpuMs + answer!.cpuMs, status: answer!.statusCode });
      }
    }
    note(
      `import + first request: median of ${runs} fresh processes, each importing index.mjs and answering one signed-in GET ` +
        `(the group's first GET needing a caller; ${bench.label}); the request reads the signing key from a Secrets Manager ` +
        'stand-in on loopback through the SDK, connects to PostgreSQL on loopback, and logs at INFO. A Lambda adds the real network ' +
        'round trips to Secrets Manager and RDS Proxy (TLS), which this machine cannot measure.',
    );
    table(
      [
        'group',
        'request',
        'status',
        'import ms',
        'first request ms',
        'import + first request ms',
        'of which CPU ms',
        `vs ${TARGET_MS} ms target`,
      ],
      built.map(({ name }) => {
        const list = samples.get(name)!;
        const event = firstRequestEvent(endpointGroups.find((candidate) => candidate.name === name)!, token);
        const totals = list.map((sample) => sample.importMs + sample.requestMs);
        return [
          name,
          `GET ${event.rawPath}`,
          [...new Set(list.map((sample) => sample.status))].join('/'),
          fixed(median(list.map((sample) => sample.importMs))),
          fixed(median(list.map((sample) => sample.requestMs))),
          fixed(median(totals)),
          fixed(median(list.map((sample) => sample.cpuMs))),
          ratioAgainst(median(totals) / TARGET_MS, 1, false),
        ];
      }),
    );
  } finally {
    await secrets.close();
    await bench.dispose();
  }
}

export async function benchBundles(): Promise<void> {
  const settings = benchSettings();
  heading('bundles: Lambda bundle size, cold import and first request per endpoint group');
  await rm(OUT_DIR, { recursive: true, force: true });
  await mkdir(path.join(OUT_DIR, 'trivial'), { recursive: true });
  await writeFile(path.join(OUT_DIR, 'trivial', 'index.mjs'), 'export const handler = async () => ({ statusCode: 200 });\n');

  const built: Built[] = endpointGroups.map((group) => ({
    name: group.name,
    bundle: buildLambdaBundle({
      entry: group.entry,
      outdir: path.join(OUT_DIR, group.name),
      ...groupBundleOptions(group, endpointGroups),
    }),
  }));
  printSizes(built);

  const importEnv = lambdaEnvironment('http://127.0.0.1:9', { dataDir: path.join(OUT_DIR, 'data') });
  await printColdImports(
    [
      { name: 'trivial ESM (baseline)', dir: path.join(OUT_DIR, 'trivial') },
      ...built.map(({ name, bundle }) => ({ name, dir: bundle.outdir })),
    ],
    importEnv,
    settings.importRuns,
  );

  if (process.env.DATABASE_URL === undefined || process.env.DATABASE_URL === '') {
    note('import + first request: skipped, it needs DATABASE_URL (PostgreSQL, as deployed; a Lambda never runs PGlite)');
    return;
  }
  await printFirstRequests(built, settings.importRuns);
}
