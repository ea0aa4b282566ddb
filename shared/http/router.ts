// Matches a method and path against a route table. Trailing slashes are optional everywhere; a
// literal segment beats a parameter; a known path with the wrong method is a 405, not a 404.
// HEAD is served by every GET route (RFC 9110 §9.3.2); the chain drops the body (head-requests.ts).
import { BadRequestError, MethodNotAllowedError, NotFoundError } from '#shared/errors.ts';
import { servedPaths, type AnyRoute, type ErrorStyle } from './route.ts';

interface CompiledPath {
  route: AnyRoute;
  pattern: RegExp;
  paramNames: string[];
  /** The path's slashes (see slashCount); a greedy tail matches this many or more. */
  slashes: number;
  greedy: boolean;
  /** Sorts literal segments before parameters, and parameters before a greedy tail. */
  rank: number[];
}

export interface RouteMatch {
  route: AnyRoute;
  params: Record<string, string>;
}

function trimSlashes(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compile(route: AnyRoute, path: string): CompiledPath {
  const paramNames: string[] = [];
  const rank: number[] = [];
  const segments = trimSlashes(path).split('/').slice(1);
  const pattern = segments
    .map((segment) => {
      const param = /^\{([a-zA-Z_][a-zA-Z0-9_]*)(\+?)\}$/.exec(segment);
      if (param === null) {
        rank.push(0);
        return `/${escapeRegExp(segment)}`;
      }
      paramNames.push(param[1]!);
      rank.push(param[2] === '+' ? 2 : 1);
      return param[2] === '+' ? '/(.+)' : '/([^/]+)';
    })
    .join('');
  return { route, pattern: new RegExp(`^${pattern}/?$`), paramNames, rank, slashes: slashCount(path), greedy: rank.includes(2) };
}

/**
 * Slashes in a path once one trailing slash is dropped: a path a pattern without a greedy tail
 * matches has exactly the pattern's count (its segments never hold a slash), so only the patterns
 * of that count (and greedy ones of at most that count) are worth trying.
 */
function slashCount(path: string): number {
  const end = path.length > 1 && path.endsWith('/') ? path.length - 1 : path.length;
  let count = 0;
  for (let at = 0; at < end; at += 1) if (path.charCodeAt(at) === 47) count += 1;
  return count;
}

/** Candidate lists are kept for paths of up to this many slashes; longer ones are filtered each time. */
const CACHED_SLASH_COUNTS = 32;

function compareRank(a: CompiledPath, b: CompiledPath): number {
  for (let i = 0; i < Math.min(a.rank.length, b.rank.length); i += 1) {
    if (a.rank[i] !== b.rank[i]) return a.rank[i]! - b.rank[i]!;
  }
  return b.rank.length - a.rank.length;
}

function decodeSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new BadRequestError('The request path is not valid percent-encoding');
  }
}

export class Router {
  private readonly compiled: CompiledPath[];

  constructor(readonly routes: readonly AnyRoute[]) {
    this.compiled = routes.flatMap((route) => servedPaths(route).map((path) => compile(route, path))).sort(compareRank);
  }

  private readonly candidatesBySlashes = new Map<number, CompiledPath[]>();

  /** The compiled paths that could match `path`, in rank order. */
  private candidates(path: string): CompiledPath[] {
    const slashes = slashCount(path);
    const cached = this.candidatesBySlashes.get(slashes);
    if (cached !== undefined) return cached;
    const found = this.compiled.filter((entry) => (entry.greedy ? entry.slashes <= slashes : entry.slashes === slashes));
    if (slashes <= CACHED_SLASH_COUNTS) this.candidatesBySlashes.set(slashes, found);
    return found;
  }

  /** Whether any route of this table answers the path, whatever the method. */
  handles(path: string): boolean {
    return this.candidates(path).some((entry) => entry.pattern.test(path));
  }

  /**
   * The last successful match. The dev server matches a request's path to learn whether the route
   * streams its body, and the handler's chain matches it again; the second is answered from here.
   */
  private lastMatch?: { method: string; path: string; found: RouteMatch };

  match(method: string, path: string): RouteMatch {
    const last = this.lastMatch;
    if (last !== undefined && last.path === path && last.method === method) return last.found;
    const found = this.scan(method, path);
    this.lastMatch = { method, path, found };
    return found;
  }

  /**
   * The error style of the route this request was meant for, when matching it failed (a 405, a
   * path that is not valid percent-encoding): the best-ranked route of the path, of the method if
   * one is, so that its area's envelope renders the error. Undefined for a path no route answers.
   */
  errorStyleOf(method: string, path: string): ErrorStyle | undefined {
    const wanted = method === 'HEAD' ? 'GET' : method;
    let style: ErrorStyle | undefined;
    let found = false;
    for (const entry of this.candidates(path)) {
      if (!entry.pattern.test(path)) continue;
      if (entry.route.method === wanted) return entry.route.errorStyle ?? 'generic';
      if (!found) style = entry.route.errorStyle ?? 'generic';
      found = true;
    }
    return style;
  }

  private scan(method: string, path: string): RouteMatch {
    const allowed = new Set<string>();
    const wanted = method === 'HEAD' ? 'GET' : method;
    for (const entry of this.candidates(path)) {
      const found = entry.pattern.exec(path);
      if (found === null) continue;
      if (entry.route.method !== wanted) {
        allowed.add(entry.route.method);
        continue;
      }
      const params: Record<string, string> = {};
      entry.paramNames.forEach((name, index) => {
        params[name] = decodeSegment(found[index + 1]!);
      });
      // Frozen: a match is handed out again for the same path (lastMatch).
      return { route: entry.route, params: Object.freeze(params) };
    }
    // A path with GET answers HEAD too, so its 405 lists it (RFC 9110 §15.5.6).
    if (allowed.size > 0)
      throw new MethodNotAllowedError(
        method,
        [...allowed].flatMap((name) => (name === 'GET' ? ['GET', 'HEAD'] : [name])).concat('OPTIONS'),
      );
    throw new NotFoundError();
  }
}
