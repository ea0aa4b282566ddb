// Throwaway: CPU profile of the dev server process while autocannon loads one record list shape.
import { Session } from 'node:inspector/promises';
import { writeFile } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import { startDataPlatform, APP_SLUG } from './data-platform.ts';
import { runLoad } from './load.ts';

const SCHEMA = {
  fields: [
    { name: 'id', type: 'string', format: 'uuid' },
    { name: 'category', type: 'string', constraints: { required: true } },
    { name: 'status', type: 'string', constraints: { required: true } },
    { name: 'price', type: 'number' },
    { name: 'qty', type: 'integer' },
    { name: 'title', type: 'string' },
    { name: 'created', type: 'datetime', constraints: { required: true } },
  ],
  primaryKey: ['id'],
  indexes: [{ name: 'category', fields: ['category'] }, { name: 'price', fields: ['price'] }, { name: 'status_created', fields: ['status', 'created'] }],
};
const platform = await startDataPlatform();
const { physical } = await platform.createTable('items', SCHEMA);
await platform.db.run(sql.raw(`insert into ${physical} (id, category, status, price, qty, title, created)
  select gen_random_uuid(), (array['garden','kitchen','tools','toys','books','music','sports','office'])[1 + n % 8],
  (array['open','closed','pending','cancelled'])[1 + (n / 8) % 4], ((n::bigint * 7919) % 10000) + 0.5, (n::bigint * 31) % 100, 'item ' || n,
  timestamptz '2024-01-01 00:00:00+00' + n * interval '1 minute' from generate_series(1, 100000) as n`));
await platform.db.run(sql.raw(`analyze ${physical}`));
const url = `${platform.url}/api/apps/${APP_SLUG}/datatables/items/data/?${process.argv[2] ?? 'status=open&_sort=-created&page=1&page_size=20'}`;
await runLoad({ url, headers: platform.headers, connections: 8, durationSeconds: 3 });
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 200 });
await session.post('Profiler.start');
const result = await runLoad({ url, headers: platform.headers, connections: 8, durationSeconds: 8 });
const { profile } = await session.post('Profiler.stop');
await writeFile('/tmp/h15-list.cpuprofile', JSON.stringify(profile));
console.log(`req/s ${result.requestsPerSecond.toFixed(1)} p50 ${result.latencyP50Ms}`);
// Self time by bucket.
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map<number, number>();
const deltas = profile.timeDeltas ?? [];
(profile.samples ?? []).forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (deltas[index] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const parents = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
const bucketOf = (id: number): string => {
  // First frame up the stack that is ours, else the library it is in.
  let current: number | undefined = id;
  let library = '';
  while (current !== undefined) {
    const frame = byId.get(current)!.callFrame;
    const file = frame.url;
    if (file.includes('/work/wt/h15-lists/') && !file.includes('node_modules')) return `${file.replace(/^.*h15-lists\//, '')}:${frame.functionName || '(anon)'}`;
    if (library === '' && file.includes('node_modules/')) library = file.replace(/^.*node_modules\//, '').split('/').slice(0, 1).join('/');
    if (library === '' && file.startsWith('node:')) library = file;
    current = parents.get(current);
  }
  const frame = byId.get(id)!.callFrame;
  return library || frame.functionName || '(program/gc/idle)';
};
const buckets = new Map<string, number>();
for (const [id, time] of self) buckets.set(bucketOf(id), (buckets.get(bucketOf(id)) ?? 0) + time);
const sorted = [...buckets].sort((a, b) => b[1] - a[1]).slice(0, 45);
for (const [name, time] of sorted) console.log(`${((100 * time) / total).toFixed(1).padStart(5)}%  ${name}`);
await platform.close();
process.exit(0);
