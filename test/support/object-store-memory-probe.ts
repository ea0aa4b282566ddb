// Run in a child process by the object-store contract suite (node --expose-gc --import tsx): puts
// a generated stream of BYTES bytes through an adapter and reads it back, sampling this process's
// resident memory, and prints the peak growth of each direction and whether the bytes came back.
// Alone in its process, the figures are the adapter's and not the test runner's or the server's.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Config, DocumentLibraryConfig } from '#shared/config.ts';
import { DocumentLibrary } from '#shared/storage/document-library/document-library.ts';
import type { ObjectStore } from '#shared/storage/object-store.ts';
import { openObjectStore } from '#shared/storage/open-object-store.ts';

/** The adapter to probe: an object store, or one site's document library. */
export type ProbeTarget = { objectStore: Config['objectStore'] } | { documentLibrary: { config: DocumentLibraryConfig; site: string } };

export type ProbeInput = ProbeTarget & {
  key: string;
  bytes: number;
};

export interface ProbeResult {
  putPeakGrowthBytes: number;
  getPeakGrowthBytes: number;
  sameBytes: boolean;
}

const CHUNK = 64 * 1024;
/** Garbage is also collected after every this many bytes pass, however slowly the machine runs. */
const COLLECT_EVERY_BYTES = 8 * 1024 * 1024;
const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
/**
 * Growth above this is collected before it counts as a peak. An upload session reads its chunks
 * from a spooled file, where no bytes pass the generator's counter, and on a loaded machine the
 * 100 ms timer fell behind: a CI run peaked at 67 MB, about 35 MB of it chunks already sent.
 */
const COLLECT_ABOVE_GROWTH_BYTES = 32 * 1024 * 1024;

/** Calls `collect` each time another COLLECT_EVERY_BYTES have been counted. */
function collectorByBytes(): (bytes: number) => void {
  let sinceCollected = 0;
  return (bytes) => {
    sinceCollected += bytes;
    if (sinceCollected < COLLECT_EVERY_BYTES) return;
    sinceCollected = 0;
    collect();
  };
}

/** Deterministic bytes made chunk by chunk, never held whole. */
function generated(total: number, hash: ReturnType<typeof createHash>): Readable {
  let sent = 0;
  const counted = collectorByBytes();
  return new Readable({
    read() {
      if (sent >= total) {
        this.push(null);
        return;
      }
      const chunk = Buffer.alloc(Math.min(CHUNK, total - sent), sent / CHUNK);
      sent += chunk.length;
      hash.update(chunk);
      counted(chunk.length);
      this.push(chunk);
    },
  });
}

/** Peak RSS above the level at the start while `work` runs, garbage collected as it goes. */
async function peakGrowth(work: () => Promise<void>): Promise<number> {
  collect();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => {
    let rss = process.memoryUsage().rss;
    // Growth past half the bound is first checked for garbage: collected, what is left is held.
    if (rss - base > COLLECT_ABOVE_GROWTH_BYTES) {
      collect();
      rss = process.memoryUsage().rss;
    }
    peak = Math.max(peak, rss);
  }, 5);
  // Garbage is collected now and then, so the figure is what the transfer holds, not what V8 has
  // not got round to freeing; every 100 ms keeps the collector from slowing the transfer down. On a
  // loaded machine the timer falls behind the bytes (a CI run once peaked at 70 MB of garbage), so
  // each direction also collects every COLLECT_EVERY_BYTES it moves.
  const collector = setInterval(collect, 100);
  try {
    await work();
  } finally {
    clearInterval(sampler);
    clearInterval(collector);
  }
  return Math.max(peak, process.memoryUsage().rss) - base;
}

async function probe(input: ProbeInput): Promise<ProbeResult> {
  const store: ObjectStore =
    'documentLibrary' in input
      ? new DocumentLibrary(input.documentLibrary.config).forSite(input.documentLibrary.site).store
      : await openObjectStore({ objectStore: input.objectStore });
  const sent = createHash('sha256');
  const received = createHash('sha256');
  // A first small round trip warms up the client (connections, lazily loaded SDK code).
  await store.put(`${input.key}-warm-up`, Buffer.from('warm-up'), { contentType: 'text/plain' });
  for await (const chunk of (await store.get(`${input.key}-warm-up`)).body) void chunk;

  const putPeakGrowthBytes = await peakGrowth(async () => {
    await store.put(input.key, generated(input.bytes, sent), { contentType: 'application/octet-stream' });
  });
  const getPeakGrowthBytes = await peakGrowth(async () => {
    const counted = collectorByBytes();
    for await (const chunk of (await store.get(input.key)).body) {
      received.update(chunk as Buffer);
      counted((chunk as Buffer).length);
    }
  });
  return { putPeakGrowthBytes, getPeakGrowthBytes, sameBytes: sent.digest('hex') === received.digest('hex') };
}

const input = JSON.parse(process.argv[2] ?? '{}') as ProbeInput;
process.stdout.write(JSON.stringify(await probe(input)));
