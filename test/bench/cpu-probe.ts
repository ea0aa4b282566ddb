// CPU time per request, beside req/s: on a machine shared with other work, throughput swings with
// the load while the CPU a request costs stays put. The probe reads this process's CPU (both servers
// run in it; the load generator is a child process) and the CPU of the PostgreSQL backends serving
// the benchmark's database, found by their process titles (`postgres: ... <user> <database> ...`),
// so it sees only a server on this machine (elsewhere it reports nothing).
import { readdir, readFile } from 'node:fs/promises';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

export interface CpuSample {
  nodeMs: number;
  /** Undefined when no backend of the database could be read (no local server, no /proc). */
  databaseMs: number | undefined;
}

export interface CpuProbe {
  sample(): Promise<CpuSample>;
}

async function backendTicks(databaseName: string): Promise<number | undefined> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return undefined;
  }
  let ticks = 0;
  let found = false;
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (pid) => {
        try {
          const title = await readFile(`/proc/${pid}/cmdline`, 'utf8');
          if (!title.startsWith('postgres: ') || !title.includes(` ${databaseName} `)) return;
          const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
          // Fields after the command name in parentheses: utime and stime are the 14th and 15th.
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          ticks += Number(fields[11]) + Number(fields[12]);
          found = true;
        } catch {
          // The process ended between the listing and the read.
        }
      }),
  );
  return found ? ticks : undefined;
}

/** A probe for this process and the backends of the benchmark's database (PGlite runs in this process). */
export function benchCpuProbe(database: { url?: string }): CpuProbe {
  return cpuProbe(database.url === undefined ? undefined : decodeURIComponent(new URL(database.url).pathname.slice(1)));
}

function cpuProbe(databaseName: string | undefined): CpuProbe {
  return {
    async sample() {
      const usage = process.cpuUsage();
      const ticks = databaseName === undefined ? undefined : await backendTicks(databaseName);
      return {
        nodeMs: (usage.user + usage.system) / 1000,
        databaseMs: ticks === undefined ? undefined : (ticks * 1000) / TICKS_PER_SECOND,
      };
    },
  };
}

/** CPU milliseconds per request between two samples. */
export function cpuPerRequest(before: CpuSample, after: CpuSample, requests: number): CpuSample {
  const per = (start: number | undefined, end: number | undefined) =>
    start === undefined || end === undefined || requests === 0 ? undefined : (end - start) / requests;
  return { nodeMs: per(before.nodeMs, after.nodeMs) ?? 0, databaseMs: per(before.databaseMs, after.databaseMs) };
}
