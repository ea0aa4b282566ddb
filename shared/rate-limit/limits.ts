// Which limits of DECISIONS a request counts against: the console statement (paths under
// /api/cloud/ and their aliases without the prefix), the general statement (every other path), and
// login attempts per source IP and username. Keys name the limit and the caller (their user UUID,
// else the gateway's source IP), never the path: case, slashes and query strings cannot reset them.
import type { RateLimitConfig } from '#shared/config.ts';

/** One counter a request adds to, and how many hits its window allows. */
export interface Counter {
  key: string;
  limit: number;
  windowSeconds: number;
}

/** Who is counted: a signed-in user (by UUID, whichever token they use) or an address. */
export type CountedCaller = { user: string } | { ip: string };

export interface CountedRequest {
  method: string;
  /** The console statement or the general one (see statementOfPath). */
  statement: 'console' | 'general';
  /** The username of a login attempt (lower-cased), when the route signs people in. */
  loginUsername?: string;
  sourceIp: string;
}

const MINUTE = 60;
const HOUR = 3600;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The path as limits see it: lower case, no repeated or trailing slashes. Only the statement is
 * chosen from the path, so this keeps `/API//cloud/Users/` in the console statement.
 */
export function canonicalPath(path: string): string {
  const collapsed = path.toLowerCase().replace(/\/{2,}/g, '/');
  return collapsed.length > 1 ? collapsed.replace(/\/+$/, '') : collapsed;
}

/**
 * The statement of a path: console for `/api/cloud/...` and for a path whose `/api/cloud` form some
 * route serves (`isConsolePath` asks the route table).
 */
export function statementOfPath(path: string, isConsolePath: (cloudForm: string) => boolean): 'console' | 'general' {
  const canonical = canonicalPath(path);
  if (canonical.startsWith('/api/cloud/')) return 'console';
  if (canonical.startsWith('/api/') && isConsolePath(`/api/cloud/${canonical.slice('/api/'.length)}`)) return 'console';
  return 'general';
}

export function countersFor(config: RateLimitConfig, request: CountedRequest, caller: CountedCaller): Counter[] {
  const id = 'user' in caller ? `u:${caller.user}` : `ip:${caller.ip}`;
  const counters: Counter[] = [];
  if (request.statement === 'console') {
    counters.push({ key: `console:${id}`, limit: config.consolePerMinute, windowSeconds: MINUTE });
    if (WRITES.has(request.method))
      counters.push({ key: `console-write:${id}`, limit: config.consoleWritesPerMinute, windowSeconds: MINUTE });
  } else if ('user' in caller) {
    counters.push({ key: `general:${id}`, limit: config.authenticatedPerHour, windowSeconds: HOUR });
  } else {
    counters.push({ key: `general-anonymous:${id}`, limit: config.anonymousPerHour, windowSeconds: HOUR });
    counters.push({ key: `general-burst:${id}`, limit: config.anonymousPerMinute, windowSeconds: MINUTE });
  }
  if (request.loginUsername !== undefined) {
    counters.push({ key: `login:ip:${request.sourceIp}:${request.loginUsername}`, limit: config.loginPerHour, windowSeconds: HOUR });
  }
  return counters;
}

/** Half of a surrogate pair without its other half (the cut at 150 may make one). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The username a login body names, for the per-username limit; '' when the body names none. It
 * becomes part of a counter's key, a PostgreSQL text: a NUL or a lone surrogate there failed the
 * whole count (every limit of the request, logged as an error each time), so they stand as U+FFFD.
 */
export function loginUsernameOf(bodyText: string | undefined): string {
  if (bodyText === undefined) return '';
  try {
    const parsed = JSON.parse(bodyText) as unknown;
    const username = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).username : undefined;
    if (typeof username !== 'string') return '';
    return username.trim().toLowerCase().slice(0, 150).replace(LONE_SURROGATE, '\uFFFD').replaceAll('\u0000', '\uFFFD');
  } catch {
    return '';
  }
}
