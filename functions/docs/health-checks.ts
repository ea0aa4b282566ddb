// Liveness and readiness. Liveness answers from the process alone (no database), so a monitor can
// tell a dead function from a dead dependency; readiness reaches the database and the object store,
// each within a bound, and names the one that failed.
import { ServiceUnavailableError } from '#shared/errors.ts';
import type { RequestLog } from '#shared/logger.ts';
import type { Runtime } from '#shared/runtime/runtime.ts';
import { pingDatabase } from './health-repository.ts';

/** Past this, a dependency counts as unreachable: a check must answer well before the gateway gives up. */
const CHECK_TIMEOUT_MS = 5000;

/** A key no object is stored under: reading its head proves the store answers without touching data. */
const PROBE_KEY = 'health/readiness-probe';

type CheckName = 'database' | 'object_store';

export interface Readiness {
  status: 'ready';
  checks: Record<CheckName, 'ok'>;
}

function withinBound<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function liveness(): { status: 'ok' } {
  return { status: 'ok' };
}

/**
 * Ready when both answer; otherwise a 503 that names the failed ones. Their error text goes to the
 * log only: it may name hosts and addresses an unauthenticated caller has no business seeing.
 */
export async function readiness(runtime: Pick<Runtime, 'db' | 'objectStore'>, log: RequestLog): Promise<Readiness> {
  const checks: Array<[CheckName, () => Promise<unknown>]> = [
    ['database', () => pingDatabase(runtime.db)],
    ['object_store', () => runtime.objectStore.head(PROBE_KEY)],
  ];
  const outcomes = await Promise.allSettled(checks.map(([, check]) => withinBound(check())));
  const failed = checks.filter((_, index) => outcomes[index]!.status === 'rejected').map(([name]) => name);
  outcomes.forEach((outcome, index) => {
    if (outcome.status === 'rejected') log.warn('readiness check failed', { check: checks[index]![0], error: String(outcome.reason) });
  });
  if (failed.length > 0) {
    throw new ServiceUnavailableError(`Not ready: ${failed.join(' and ')} unreachable.`, { extras: { data: { failed } } });
  }
  return { status: 'ready', checks: { database: 'ok', object_store: 'ok' } };
}
