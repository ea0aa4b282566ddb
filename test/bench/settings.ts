// Knobs of the load benchmarks, from the environment so a quick look can run shorter:
// BENCH_DURATION (s per measured run, default 10), BENCH_WARMUP (s, 3), BENCH_ROUNDS (3),
// BENCH_CONNECTIONS (10), BENCH_IMPORT_RUNS (fresh processes per bundle, 9).
export interface BenchSettings {
  durationSeconds: number;
  warmupSeconds: number;
  rounds: number;
  connections: number;
  importRuns: number;
}

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1, got "${raw}"`);
  return value;
}

export function benchSettings(): BenchSettings {
  return {
    durationSeconds: positiveInteger('BENCH_DURATION', 10),
    warmupSeconds: positiveInteger('BENCH_WARMUP', 3),
    rounds: positiveInteger('BENCH_ROUNDS', 3),
    connections: positiveInteger('BENCH_CONNECTIONS', 10),
    importRuns: positiveInteger('BENCH_IMPORT_RUNS', 9),
  };
}
