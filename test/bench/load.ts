// Load generation with autocannon's CLI in a child process, so the client never shares an event
// loop with the servers it measures (PGlite pins both servers to the process that owns it).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  durationSeconds: number;
}

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Responses outside 2xx plus socket errors and timeouts; a run with any is not a measurement. */
  failures: number;
  durationSeconds: number;
}

/** The parts of `autocannon --json` read here. */
interface AutocannonJson {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  latency: { p50: number; p99: number };
  requests: { total: number };
}

const autocannonCli = path.join(path.dirname(createRequire(import.meta.url).resolve('autocannon/package.json')), 'autocannon.js');

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const args = [
    autocannonCli,
    '--json',
    '--no-progress',
    '--connections',
    String(options.connections),
    '--duration',
    String(options.durationSeconds),
  ];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('--header', `${name}=${value}`);
  args.push(options.url);
  // A plain node, without the tsx loader this process runs under.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) {
        reject(new Error(`autocannon exited with ${code}: ${stderr}`));
        return;
      }
      const result = JSON.parse(stdout) as AutocannonJson;
      resolve({
        requests: result.requests.total,
        requestsPerSecond: result.requests.total / result.duration,
        latencyP50Ms: result.latency.p50,
        latencyP99Ms: result.latency.p99,
        failures: result.non2xx + result.errors + result.timeouts,
        durationSeconds: result.duration,
      });
    });
  });
}
