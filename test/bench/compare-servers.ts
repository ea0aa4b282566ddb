// Measures the platform against its baseline the same way in every throughput benchmark: the same
// autocannon client, warm-up, rounds in alternating order, and one report of req/s and the ratio.
import { cpuPerRequest, type CpuProbe, type CpuSample } from './cpu-probe.ts';
import { runLoad, type LoadResult } from './load.ts';
import { fixed, median, note, ratioAgainst, table } from './report.ts';
import type { BenchSettings } from './settings.ts';

export interface MeasuredServer {
  name: string;
  /** The full URL every request of the run goes to. */
  url: string;
}

/** The medians of one comparison, for a summary table. */
export interface Comparison {
  platform: { rps: number; p50: number; p99: number };
  baseline: { rps: number; p50: number; p99: number };
  ratio: number;
}

/** `platform` first, `baseline` second; prints the runs, the medians and the ratio against `targetRatio`. */
export async function comparePlatformToBaseline(
  servers: readonly [MeasuredServer, MeasuredServer],
  headers: Record<string, string>,
  settings: BenchSettings,
  targetRatio: number,
  cpu?: CpuProbe,
): Promise<Comparison> {
  note(
    `load: autocannon CLI in a child process, ${settings.connections} connections, ` +
      `${settings.warmupSeconds} s warm-up each, then ${settings.rounds} rounds of ${settings.durationSeconds} s per server, order alternating`,
  );
  const load = (url: string, durationSeconds: number) => runLoad({ url, headers, connections: settings.connections, durationSeconds });
  for (const server of servers) await load(server.url, settings.warmupSeconds);
  const results = new Map<string, LoadResult[]>(servers.map((server) => [server.name, []]));
  const cpuUse = new Map<string, CpuSample[]>(servers.map((server) => [server.name, []]));
  for (let round = 0; round < settings.rounds; round += 1) {
    const order = round % 2 === 0 ? servers : [...servers].reverse();
    for (const server of order) {
      const before = await cpu?.sample();
      const result = await load(server.url, settings.durationSeconds);
      const after = await cpu?.sample();
      if (result.failures > 0) throw new Error(`${server.name}: ${result.failures} failed requests in round ${round + 1}`);
      results.get(server.name)!.push(result);
      if (before !== undefined && after !== undefined) cpuUse.get(server.name)!.push(cpuPerRequest(before, after, result.requests));
    }
  }

  const rows: string[][] = [];
  for (const server of servers) {
    results.get(server.name)!.forEach((result, round) => {
      rows.push([
        `${server.name} #${round + 1}`,
        fixed(result.requestsPerSecond),
        fixed(result.latencyP50Ms, 0),
        fixed(result.latencyP99Ms, 0),
        String(result.requests),
      ]);
    });
  }
  const [platform, baseline] = servers.map((server) => {
    const runs = results.get(server.name)!;
    return {
      name: server.name,
      rps: median(runs.map((run) => run.requestsPerSecond)),
      p50: median(runs.map((run) => run.latencyP50Ms)),
      p99: median(runs.map((run) => run.latencyP99Ms)),
    };
  }) as [{ name: string; rps: number; p50: number; p99: number }, { name: string; rps: number; p50: number; p99: number }];
  for (const entry of [platform, baseline])
    rows.push([`${entry.name} median`, fixed(entry.rps), fixed(entry.p50, 0), fixed(entry.p99, 0), '']);
  table(['run', 'req/s', 'p50 ms', 'p99 ms', 'requests'], rows);
  const baselineRuns = results.get(servers[1].name)!;
  const perRound = results
    .get(servers[0].name)!
    .map((run, round) => fixed(run.requestsPerSecond / baselineRuns[round]!.requestsPerSecond, 2));
  note(`ratio platform / baseline (median req/s): ${ratioAgainst(platform.rps / baseline.rps, targetRatio, true)}`);
  note(`ratio per round: ${perRound.join(', ')}`);
  note(
    `1 / throughput: platform ${fixed(1000 / platform.rps, 3)} ms, baseline ${fixed(1000 / baseline.rps, 3)} ms ` +
      `per request (the platform adds ${fixed(1000 / platform.rps - 1000 / baseline.rps, 3)} ms)`,
  );
  if (cpu !== undefined) reportCpu(servers, cpuUse);
  return { platform, baseline, ratio: platform.rps / baseline.rps };
}

/**
 * CPU per request of each server (this process, and the database's backends when they can be read),
 * median of the rounds, and the ratio of the totals: what the throughput ratio tends to when the
 * machine's cores are the limit, and steadier than req/s when other work shares the machine.
 */
function reportCpu(servers: readonly [MeasuredServer, MeasuredServer], cpuUse: Map<string, CpuSample[]>): void {
  const medians = servers.map((server) => {
    const samples = cpuUse.get(server.name)!;
    const database = samples.map((sample) => sample.databaseMs).filter((value): value is number => value !== undefined);
    const nodeMs = median(samples.map((sample) => sample.nodeMs));
    const databaseMs = database.length === samples.length && database.length > 0 ? median(database) : undefined;
    return { nodeMs, databaseMs, totalMs: nodeMs + (databaseMs ?? 0) };
  });
  const shown = (value: number | undefined) => (value === undefined ? 'n/a' : fixed(value, 3));
  note(
    `CPU per request (median of rounds): ${servers
      .map((server, index) => `${server.name} node ${shown(medians[index]!.nodeMs)} + database ${shown(medians[index]!.databaseMs)} ms`)
      .join('; ')}; baseline / platform ${fixed(medians[1]!.totalMs / medians[0]!.totalMs, 2)}`,
  );
}
