// The short form of `npm run bench -- load` and `-- soak` for CI: `npm start` in a child process
// (on a fresh PostgreSQL database with DATABASE_URL, else PGlite) under 200 keep-alive connections of
// mixed traffic (three requests each), then a steady rate (ten each over 20): no 5xx, no dropped
// connection, and once the clients are gone the server holds no more descriptors than it did before
// them (no leaked sockets, files or streams). Counts only; timings belong to the benchmarks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMixedLoad, startLoadServer, type LoadServer } from '#test/support/mixed-load.ts';

/** Sockets the server may still be closing, and its database pool growing, once clients are gone. */
const DESCRIPTOR_SLACK = 16;

describe('npm start under mixed load', () => {
  let load: LoadServer | undefined;
  let server: LoadServer['server'];
  let fixture: LoadServer['fixture'];

  beforeAll(async () => {
    load = await startLoadServer('load');
    ({ server, fixture } = load);
  }, 120_000);
  afterAll(async () => {
    await load?.close();
  });

  /** The server's descriptors once it has closed what the clients left: waits for it, up to a point. */
  const settledDescriptors = async (atMost: number): Promise<number> => {
    let descriptors = await server.openDescriptors();
    for (let attempt = 0; attempt < 50 && descriptors > atMost; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      descriptors = await server.openDescriptors();
    }
    return descriptors;
  };

  it('answers 200 connections of mixed traffic without a 5xx or a dropped connection', { timeout: 120_000 }, async () => {
    const before = await server.openDescriptors();
    // Three requests per client (a sign-in and two of the mix) however slow the machine.
    const tally = await runMixedLoad({ url: server.url, fixture, connections: 200, durationSeconds: 600, turnsPerClient: 3 });
    expect(tally.failures, server.output()).toEqual([]);
    expect(tally.serverErrors).toBe(0);
    expect(tally.droppedConnections).toBe(0);
    // One socket per connection, kept alive throughout: the server closed none of them.
    expect(tally.socketsOpened).toBe(200);
    // Every client signed in and went on to the rest of the mix.
    expect(tally.requests).toBe(600);
    expect(tally.byKind.token).toBeGreaterThanOrEqual(200);
    for (const kind of ['users-list', 'records-list', 'record-write', 'upload', 'download'] as const) {
      expect(tally.byKind[kind]).toBeGreaterThan(0);
    }
    expect(Object.keys(tally.statuses).every((status) => status === '200' || status === '201')).toBe(true);
    expect(await settledDescriptors(before + DESCRIPTOR_SLACK)).toBeLessThanOrEqual(before + DESCRIPTOR_SLACK);
  });

  it('holds no more descriptors after a steady run than before it', { timeout: 120_000 }, async () => {
    const before = await server.openDescriptors();
    const tally = await runMixedLoad({
      url: server.url,
      fixture,
      connections: 20,
      durationSeconds: 600,
      turnsPerClient: 10,
      ratePerSecond: 50,
    });
    expect(tally.failures, server.output()).toEqual([]);
    expect(tally.requests).toBe(200);
    expect(await settledDescriptors(before + DESCRIPTOR_SLACK)).toBeLessThanOrEqual(before + DESCRIPTOR_SLACK);
  });
});
