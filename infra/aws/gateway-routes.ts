// Maps the groups' route tables to HTTP API route keys. Every served path contributes its base
// (the path up to any greedy parameter, parameters renamed by position, no trailing slash) as
// `ANY <base>` and `ANY <base>/{proxy+}`; the Lambda's own router does the exact matching and
// answers OPTIONS (CORS) and 405s. Keys a group does not need, because its own greedy route on an
// ancestor already catches those requests, are left out: HTTP APIs allow a few hundred routes.
import { servedPaths, type Route } from '#shared/http/route.ts';
import { GREEDY_SEGMENT, isParameter, pathSegments, selectRoute } from './gateway-route-selection.ts';

export interface RoutedGroup {
  name: string;
  routes: readonly Pick<Route, 'path' | 'consoleAlias'>[];
}

export interface GatewayRoute {
  group: string;
  /** The route's path in API Gateway syntax, e.g. `/api/cloud/users/{proxy+}`. */
  path: string;
  /** `ANY <path>`. */
  routeKey: string;
}

export class RouteKeyConflictError extends Error {
  constructor(
    readonly routeKey: string,
    readonly groups: [string, string],
  ) {
    super(`Route key "${routeKey}" is claimed by endpoint groups "${groups[0]}" and "${groups[1]}"`);
    this.name = 'RouteKeyConflictError';
  }
}

const joinPath = (segments: readonly string[]): string => `/${segments.join('/')}`;

/**
 * The base path a served path is routed by. Parameters are renamed after their position
 * (`{param3}`) so that routes of different groups agree on names at the same depth; the Lambda
 * routes on the raw path and never reads API Gateway's path parameters.
 */
export function routeBase(path: string): string {
  const base: string[] = [];
  for (const [index, segment] of pathSegments(path).entries()) {
    if (segment.includes('{') || segment.includes('}')) {
      if (!/^\{[A-Za-z_][A-Za-z0-9_]*\+?\}$/.test(segment)) {
        throw new Error(`Path ${path}: a parameter must be a whole segment like {name} or {name+}, not "${segment}"`);
      }
      if (segment.endsWith('+}')) break;
      base.push(`{param${index + 1}}`);
    } else {
      base.push(segment);
    }
  }
  return joinPath(base);
}

export function greedyPath(base: string): string {
  return base === '/' ? `/${GREEDY_SEGMENT}` : `${base}/${GREEDY_SEGMENT}`;
}

/** A concrete request for a served path: `{name}` → a value, `{rest+}` → two segments. */
export function sampleRequest(servedPath: string): string {
  return joinPath(
    pathSegments(servedPath).map((segment) =>
      !isParameter(segment) ? segment : segment.endsWith('+}') ? 'sample-key/sample-rest' : 'sample-value',
    ),
  );
}

interface Sample {
  group: string;
  path: string;
}

function misrouted(routes: readonly GatewayRoute[], samples: readonly Sample[]): Array<Sample & { actual?: string }> {
  return samples
    .map((sample) => ({ ...sample, actual: selectRoute(routes, sample.path)?.group }))
    .filter((sample) => sample.actual !== sample.group);
}

const pairFor = (group: string, base: string): GatewayRoute[] =>
  [base, greedyPath(base)].map((path) => ({ group, path, routeKey: `ANY ${path}` }));

/**
 * Route keys for all groups. Throws RouteKeyConflictError when two groups would claim the same
 * key, and an Error when some route would still reach another group's Lambda.
 */
export function gatewayRoutes(groups: readonly RoutedGroup[]): GatewayRoute[] {
  const owners = new Map<string, string>();
  const bases: Array<{ group: string; base: string }> = [];
  const samples: Sample[] = [];
  for (const group of groups) {
    const paths = group.routes.flatMap((route) => servedPaths(route));
    samples.push(...paths.map((path) => ({ group: group.name, path: sampleRequest(path) })));
    for (const base of new Set(paths.map(routeBase))) {
      const owner = owners.get(base);
      if (owner !== undefined && owner !== group.name) throw new RouteKeyConflictError(`ANY ${base}`, [owner, group.name]);
      owners.set(base, group.name);
      bases.push({ group: group.name, base });
    }
  }

  // Deepest first: a deep base is the likeliest to be covered by its group's shallower greedy key.
  const kept = new Set(bases);
  const routesOf = (set: ReadonlySet<{ group: string; base: string }>): GatewayRoute[] =>
    [...set].flatMap(({ group, base }) => pairFor(group, base));
  const byDepth = [...bases].sort((a, b) => pathSegments(b.base).length - pathSegments(a.base).length);
  for (const candidate of byDepth) {
    kept.delete(candidate);
    if (misrouted(routesOf(kept), samples).length > 0) kept.add(candidate);
  }

  const routes = routesOf(kept).sort((a, b) => a.group.localeCompare(b.group) || a.path.localeCompare(b.path));
  const wrong = misrouted(routes, samples);
  if (wrong.length > 0) {
    const [first] = wrong;
    throw new Error(
      `Request ${first!.path} of endpoint group "${first!.group}" would reach ${first!.actual === undefined ? 'no route' : `group "${first!.actual}"`}`,
    );
  }
  return routes;
}
