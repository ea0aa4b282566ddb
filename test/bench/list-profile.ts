// Where a list request's time goes in the dev server: a CPU profile (node:inspector, 200 µs
// sampling) of this process while autocannon (8 connections, in a child process) loads shape 2 of
// the data matrix, or the list query given in BENCH_LIST_QUERY. Prints self time grouped by the
// project function nearest up the stack (else the library), and writes the profile for DevTools.
import { Session } from 'node:inspector/promises';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Profiler } from 'node:inspector';
import { startDataPlatform, APP_SLUG } from './data-platform.ts';
import { ITEMS_SCHEMA, SHAPE_2, seedItems } from './data-matrix.ts';
import { runLoad } from './load.ts';
import { fixed, heading, note, table } from './report.ts';
import { benchSettings } from './settings.ts';

const ROWS = 100_000;
const SHOWN = 30;

/** Self time per bucket: the nearest frame of this project up the stack, else the library or node module. */
function selfTimeByBucket(profile: Profiler.Profile): Array<[string, number]> {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const bucketOf = (id: number): string => {
    let library = '';
    for (let current: number | undefined = id; current !== undefined; current = parents.get(current)) {
      const frame = nodes.get(current)!.callFrame;
      const inModules = frame.url.includes('node_modules/');
      if (!inModules && /\/(functions|shared|infra)\//.test(frame.url)) {
        return `${frame.url.replace(/^.*\/(functions|shared|infra)\//, '$1/')}:${frame.functionName || '(anonymous)'}`;
      }
      if (library === '' && inModules) library = frame.url.replace(/^.*node_modules\//, '').split('/')[0]!;
      if (library === '' && frame.url.startsWith('node:')) library = frame.url;
    }
    return library || nodes.get(id)!.callFrame.functionName || '(program)';
  };
  const buckets = new Map<string, number>();
  const deltas = profile.timeDeltas ?? [];
  (profile.samples ?? []).forEach((id, index) => {
    const bucket = bucketOf(id);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + (deltas[index] ?? 0));
  });
  return [...buckets].sort((a, b) => b[1] - a[1]);
}

export async function benchListProfile(): Promise<void> {
  const settings = benchSettings();
  const query = process.env.BENCH_LIST_QUERY ?? SHAPE_2;
  const platform = await startDataPlatform();
  try {
    const { physical } = await platform.createTable('items', ITEMS_SCHEMA);
    await seedItems(platform, physical, ROWS);
    const url = `${platform.url}/api/apps/${APP_SLUG}/datatables/items/data/?${query}`;
    heading(`list-profile: GET ${url.replace(platform.url, '')} over ${ROWS / 1000}k rows, CPU profile of the dev server's process`);
    await runLoad({ url, headers: platform.headers, connections: 8, durationSeconds: settings.warmupSeconds });
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    const load = await runLoad({ url, headers: platform.headers, connections: 8, durationSeconds: settings.durationSeconds });
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    const file = path.join(tmpdir(), `tessera-list-${process.pid}.cpuprofile`);
    await writeFile(file, JSON.stringify(profile));
    note(
      `database: ${platform.database.label}; ${fixed(load.requestsPerSecond)} req/s, p50 ${load.latencyP50Ms} ms while profiled; profile in ${file}`,
    );
    const buckets = selfTimeByBucket(profile);
    const total = buckets.reduce((sum, [, time]) => sum + time, 0);
    table(
      ['share of samples', 'where'],
      buckets.slice(0, SHOWN).map(([name, time]) => [`${fixed((100 * time) / total)}%`, name]),
    );
  } finally {
    await platform.close();
  }
}
