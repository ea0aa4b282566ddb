// `npm run bench -- load`: 1,000 keep-alive connections (BENCH_LOAD_CONNECTIONS) of mixed traffic —
// sign-ins, user and record lists, record writes, 8 KB uploads, 16 KB downloads — against `npm start`
// in a child process for 60 s (BENCH_DURATION), on PostgreSQL when DATABASE_URL is set. Prints the
// answers by status, 5xx and dropped connections (both should be zero), p50/p99 latency and the
// server's resident set at start, peak and end. Exits non-zero when a 5xx or a drop happened.
import { cpus, loadavg } from 'node:os';
import { openBenchDatabase } from './bench-database.ts';
import {
  LOAD_SERVER_ENV,
  percentile,
  prepareLoadFixture,
  runMixedLoad,
  startServerProcess,
  type LoadTally,
} from '#test/support/mixed-load.ts';

function whole(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1, got "${raw}"`);
  return value;
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export function describeTally(tally: LoadTally, seconds: number): string {
  const kinds = Object.entries(tally.byKind)
    .map(([kind, count]) => `${kind} ${count}`)
    .join(', ');
  const statuses = Object.entries(tally.statuses)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  return [
    `  requests ${tally.requests} (${(tally.requests / seconds).toFixed(1)}/s): ${kinds}`,
    `  statuses ${statuses}`,
    `  latency p50 ${percentile(tally.latenciesMs, 50).toFixed(1)} ms, p99 ${percentile(tally.latenciesMs, 99).toFixed(1)} ms`,
    `  5xx ${tally.serverErrors}, dropped connections ${tally.droppedConnections}, sockets opened ${tally.socketsOpened}`,
    ...tally.failures.map((failure) => `  failure: ${failure}`),
  ].join('\n');
}

export async function benchLoad(): Promise<void> {
  const connections = whole('BENCH_LOAD_CONNECTIONS', 1000);
  const durationSeconds = whole('BENCH_DURATION', 60);
  const database = await openBenchDatabase(10);
  const env: Record<string, string> = { ...LOAD_SERVER_ENV, DATA_DIR: database.dataDir };
  if (database.url !== undefined) env.DATABASE_URL = database.url;
  const server = await startServerProcess(env);
  try {
    console.log(`\nload: ${connections} keep-alive connections of mixed traffic for ${durationSeconds} s, ${database.label}`);
    console.log(
      `  load average ${loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')} on ${cpus().length} cores`,
    );
    const fixture = await prepareLoadFixture(server.url);
    const startRss = await server.rss();
    let peakRss = startRss;
    const sampler = setInterval(() => {
      server.rss().then(
        (rss) => (peakRss = Math.max(peakRss, rss)),
        () => undefined,
      );
    }, 250);
    const tally = await runMixedLoad({ url: server.url, fixture, connections, durationSeconds }).finally(() => clearInterval(sampler));
    const endRss = await server.rss();
    console.log(describeTally(tally, durationSeconds));
    console.log(`  server RSS start ${megabytes(startRss)}, peak ${megabytes(Math.max(peakRss, endRss))}, end ${megabytes(endRss)}`);
    console.log(
      `  load average after ${loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')}`,
    );
    if (tally.serverErrors > 0 || tally.droppedConnections > 0) {
      console.log(`  server output:\n${server.output().slice(-3000)}`);
      process.exitCode = 1;
    }
  } finally {
    await server.stop();
    await database.dispose();
  }
}
