// `npm run bench` runs every benchmark; `npm run bench -- users-list` runs one by name. Figures and
// ratios against a baseline measured in the same run are printed; nothing here passes or fails.
// With DATABASE_URL the database benchmarks use a fresh database on that server, else PGlite.
// Shorter runs for a quick look: see settings.ts (BENCH_DURATION, BENCH_ROUNDS, ...).

interface Benchmark {
  name: string;
  summary: string;
  run(): Promise<void>;
}

const benchmarks: Benchmark[] = [
  {
    name: 'users-list',
    summary: 'req/s of GET /api/cloud/users/?page_size=20 through the dev server vs a bare node:http server with the same SQL',
    run: async () => (await import('./users-list.ts')).benchUsersList(),
  },
  {
    name: 'rate-limits',
    summary: 'req/s of the same users list with rate limits on (every request counted) vs off, alternating rounds on one server',
    run: async () => (await import('./rate-limits.ts')).benchRateLimits(),
  },
  {
    name: 'data-list',
    summary:
      'req/s of a two-filter, sorted, paged record list over 100k rows through the dev server vs a bare node:http server with the same statement',
    run: async () => (await import('./data-list.ts')).benchDataList(),
  },
  {
    name: 'relations',
    summary:
      'req/s of populate (2 levels, 100 parents), a related filter and descendants to depth 10 over 100k nodes through the dev server vs hand-written SQL on bare node:http',
    run: async () => (await import('./relations.ts')).benchRelations(),
  },
  {
    name: 'data-matrix',
    summary:
      'req/s of seven record and user list shapes (100k and 1M rows) through the dev server vs a bare node:http server sending page and count together; _count=planned vs exact on 1M rows',
    run: async () => (await import('./data-matrix.ts')).benchDataMatrix(),
  },
  {
    name: 'list-profile',
    summary:
      'CPU profile of the dev server while 8 connections load one record list (data-matrix shape 2, or BENCH_LIST_QUERY): self time by project function',
    run: async () => (await import('./list-profile.ts')).benchListProfile(),
  },
  {
    name: 'bulk-create',
    summary:
      'rows/s of POSTing 10k records in one request through the dev server vs a raw INSERT … SELECT FROM jsonb_to_recordset of the same rows',
    run: async () => (await import('./bulk-create.ts')).benchBulkCreate(),
  },
  {
    name: 'data-search',
    summary:
      'p50/p95 latency of ?search=<word> over 100k rows, sequential requests through the dev server vs the same statement run directly',
    run: async () => (await import('./data-search.ts')).benchDataSearch(),
  },
  {
    name: 'storage-transfer',
    summary:
      "MB/s of a 50 MB PUT and GET through the dev server vs writing and reading the bytes on disk, and the server's peak RSS growth",
    run: async () => (await import('./storage-transfer.ts')).benchStorageTransfer(),
  },
  {
    name: 'schema',
    summary:
      'ms of a PATCH adding a nullable column and of one renaming a column on a 1M-row table (target < 200 ms), and the NOT NULL preflight over 1M rows',
    run: async () => (await import('./schema-migration.ts')).benchSchemaMigration(),
  },
  {
    name: 'patterns',
    summary:
      'µs per value of Table Schema patterns (a+)+$, (a|aa)+$, (.*a){20}, (\\w+\\s?)+ on the linear-time engine at 100 to 100k characters, vs V8 RegExp on short values',
    run: async () => (await import('./patterns.ts')).benchPatterns(),
  },
  {
    name: 'hosting',
    summary:
      'req/s of a 200 KB asset of an active build from its subdomain on the dev server vs a bare node:http static server reading the same file',
    run: async () => (await import('./hosting.ts')).benchHosting(),
  },
  {
    name: 'load',
    summary:
      "1,000 keep-alive connections of mixed traffic (sign-ins, lists, record writes, uploads, downloads) for 60 s against npm start: 5xx, drops, p50/p99, the server's RSS",
    run: async () => (await import('./load-mixed.ts')).benchLoad(),
  },
  {
    name: 'soak',
    summary:
      "mixed traffic at a steady 100 requests/s for 10 minutes against npm start: the server's RSS and open descriptors over time; fails when they grow",
    run: async () => (await import('./soak.ts')).benchSoak(),
  },
  {
    name: 'bundles',
    summary:
      'Lambda bundle bytes read on import (target ≤ 1 MB), cold import and import + first request (target ≤ 100 ms) per endpoint group',
    run: async () => (await import('./bundles.ts')).benchBundles(),
  },
];

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  const unknown = names.filter((name) => !benchmarks.some((benchmark) => benchmark.name === name));
  if (unknown.length > 0) {
    console.error(`unknown benchmark ${unknown.join(', ')}; choose from:`);
    for (const benchmark of benchmarks) console.error(`  ${benchmark.name}  ${benchmark.summary}`);
    process.exit(2);
  }
  const chosen = names.length === 0 ? benchmarks : benchmarks.filter((benchmark) => names.includes(benchmark.name));
  const startedAt = performance.now();
  console.log(`Tessera benchmarks — node ${process.version}, ${process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'PGlite'}`);
  for (const benchmark of chosen) await benchmark.run();
  console.log(`\ndone in ${Math.round((performance.now() - startedAt) / 1000)} s`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
