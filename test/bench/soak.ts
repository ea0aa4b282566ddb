// `npm run bench -- soak`: mixed traffic at a steady rate (BENCH_SOAK_RATE requests/s, default 100,
// over BENCH_SOAK_CONNECTIONS keep-alive connections, default 50) against `npm start` in a child
// process for 10 minutes (BENCH_DURATION, in seconds). Prints the server's resident set and open
// descriptors every BENCH_SOAK_SAMPLE seconds (default 30) and fails (exit code 1) when either grows:
// the last third of the samples against the first third after the first sample (warm-up), RSS by
// more than 64 MB, descriptors by more than 32, or any 5xx or dropped connection.
import { loadavg } from 'node:os';
import { openBenchDatabase } from './bench-database.ts';
import { describeTally } from './load-mixed.ts';
import { LOAD_SERVER_ENV, prepareLoadFixture, runMixedLoad, startServerProcess } from '#test/support/mixed-load.ts';

const RSS_GROWTH_LIMIT_BYTES = 64 * 1024 * 1024;
const DESCRIPTOR_GROWTH_LIMIT = 32;

function whole(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1, got "${raw}"`);
  return value;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

interface Sample {
  seconds: number;
  rss: number;
  descriptors: number;
}

export async function benchSoak(): Promise<void> {
  const durationSeconds = whole('BENCH_DURATION', 600);
  const rate = whole('BENCH_SOAK_RATE', 100);
  const connections = whole('BENCH_SOAK_CONNECTIONS', 50);
  const sampleSeconds = whole('BENCH_SOAK_SAMPLE', 30);
  const database = await openBenchDatabase(10);
  const env: Record<string, string> = { ...LOAD_SERVER_ENV, DATA_DIR: database.dataDir };
  if (database.url !== undefined) env.DATABASE_URL = database.url;
  const server = await startServerProcess(env);
  try {
    console.log(`\nsoak: ${rate} requests/s of mixed traffic over ${connections} connections for ${durationSeconds} s, ${database.label}`);
    console.log(
      `  load average ${loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')}`,
    );
    const fixture = await prepareLoadFixture(server.url);
    const samples: Sample[] = [];
    const startedAt = performance.now();
    const takeSample = async () => {
      const sample = {
        seconds: Math.round((performance.now() - startedAt) / 1000),
        rss: await server.rss(),
        descriptors: await server.openDescriptors(),
      };
      samples.push(sample);
      console.log(
        `  ${String(sample.seconds).padStart(5)} s  RSS ${(sample.rss / 1024 / 1024).toFixed(1)} MB  open descriptors ${sample.descriptors}`,
      );
    };
    await takeSample();
    const sampler = setInterval(() => void takeSample(), sampleSeconds * 1000);
    const tally = await runMixedLoad({ url: server.url, fixture, connections, durationSeconds, ratePerSecond: rate }).finally(() =>
      clearInterval(sampler),
    );
    await takeSample();
    console.log(describeTally(tally, durationSeconds));
    const settled = samples.slice(1);
    const third = Math.max(1, Math.floor(settled.length / 3));
    const early = settled.slice(0, third);
    const late = settled.slice(-third);
    const rssGrowth = median(late.map((sample) => sample.rss)) - median(early.map((sample) => sample.rss));
    const descriptorGrowth = median(late.map((sample) => sample.descriptors)) - median(early.map((sample) => sample.descriptors));
    const grew = rssGrowth > RSS_GROWTH_LIMIT_BYTES || descriptorGrowth > DESCRIPTOR_GROWTH_LIMIT;
    console.log(
      `  growth (median of the last third vs the first): RSS ${(rssGrowth / 1024 / 1024).toFixed(1)} MB (limit 64), descriptors ${descriptorGrowth} (limit ${DESCRIPTOR_GROWTH_LIMIT}) → ${grew ? 'GREW' : 'steady'}`,
    );
    console.log(
      `  load average after ${loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')}`,
    );
    if (grew || tally.serverErrors > 0 || tally.droppedConnections > 0) process.exitCode = 1;
  } finally {
    await server.stop();
    await database.dispose();
  }
}
