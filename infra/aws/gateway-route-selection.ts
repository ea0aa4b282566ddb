// A model of how an HTTP API picks the route for a request, for the route shapes this app creates
// (literal segments, whole-segment `{param}`s, a trailing `{proxy+}`). Following the API Gateway
// developer guide: a route matching every segment beats a greedy one; among greedy routes the
// longer wins; at equal length a literal segment beats a parameter, left to right. Trailing
// slashes are treated as optional, as the app's router does; verify that assumption on a deployed
// stage (see the infra notes) before relying on it.

export const GREEDY_SEGMENT = '{proxy+}';

export interface PathRoute {
  /** The route's path in API Gateway syntax. */
  path: string;
}

export function pathSegments(path: string): string[] {
  return path.split('/').filter((segment) => segment.length > 0);
}

export function isParameter(segment: string): boolean {
  return segment.startsWith('{') && segment.endsWith('}');
}

function isGreedy(segment: string): boolean {
  return isParameter(segment) && segment.endsWith('+}');
}

/** Specificity as a comparable tuple: full match first, then length, then literals first. */
function rank(segments: string[], greedy: boolean): number[] {
  return [greedy ? 0 : 1, segments.length, ...segments.map((segment) => (isParameter(segment) ? 0 : 1))];
}

function outranks(a: number[], b: number[]): boolean {
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const difference = (a[index] ?? -1) - (b[index] ?? -1);
    if (difference !== 0) return difference > 0;
  }
  return false;
}

/** The route API Gateway would pick for `requestPath`, or undefined (a 404 from the gateway). */
export function selectRoute<T extends PathRoute>(routes: readonly T[], requestPath: string): T | undefined {
  const request = pathSegments(requestPath);
  let best: { route: T; rank: number[] } | undefined;
  for (const route of routes) {
    const all = pathSegments(route.path);
    const greedy = all.length > 0 && isGreedy(all[all.length - 1]!);
    const segments = greedy ? all.slice(0, -1) : all;
    const fits = greedy ? request.length > segments.length : request.length === segments.length;
    if (!fits || !segments.every((segment, index) => isParameter(segment) || segment === request[index])) continue;
    const candidate = rank(segments, greedy);
    if (best === undefined || outranks(candidate, best.rank)) best = { route, rank: candidate };
  }
  return best?.route;
}

/**
 * The `pathParameters` API Gateway sends when `routePath` answers `requestPath`: each `{name}` with
 * its segment, a trailing `{name+}` with the rest of the path (a trailing slash included);
 * undefined when the route has no parameters, as the gateway then leaves the member out.
 */
export function pathParametersOf(routePath: string, requestPath: string): Record<string, string> | undefined {
  const request = pathSegments(requestPath);
  const parameters: Record<string, string> = {};
  for (const [index, segment] of pathSegments(routePath).entries()) {
    if (!isParameter(segment)) continue;
    const name = segment.slice(1, isGreedy(segment) ? -2 : -1);
    parameters[name] = isGreedy(segment)
      ? requestPath
          .split('/')
          .slice(index + 1)
          .join('/')
      : request[index]!;
  }
  return Object.keys(parameters).length === 0 ? undefined : parameters;
}
