// What API Gateway puts in an event for a request of a fixture: the route key of the HTTP API route
// that answers it (the routes CDK creates from the route tables) and that route's path parameters.
// The fixtures carry these so `npm run invoke` sends what a deployed Lambda receives.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type GatewayRoute, gatewayRoutes, type RoutedGroup } from '#infra/aws/gateway-routes.ts';
import { pathParametersOf, selectRoute } from '#infra/aws/gateway-route-selection.ts';

export interface DeployedRoute {
  routeKey: string;
  pathParameters?: Record<string, string>;
}

/** Finds the deployed route of a request path; build once per set of groups. */
export function deployedRouteFinder(groups: readonly RoutedGroup[]): (group: string, rawPath: string) => DeployedRoute {
  const routes: GatewayRoute[] = gatewayRoutes(groups);
  return (group, rawPath) => {
    const route = selectRoute(routes, rawPath);
    if (route === undefined || route.group !== group) {
      throw new Error(`${rawPath} reaches ${route === undefined ? 'no route' : `group "${route.group}"`} at the gateway, not "${group}"`);
    }
    const pathParameters = pathParametersOf(route.path, rawPath);
    return pathParameters === undefined ? { routeKey: route.routeKey } : { routeKey: route.routeKey, pathParameters };
  };
}

/**
 * `event` with the route key (top level and in requestContext) and path parameters of its deployed
 * route; members keep their order, `pathParameters` goes after `requestContext` as in AWS's samples.
 */
export function withDeployedRoute(event: APIGatewayProxyEventV2, route: DeployedRoute): APIGatewayProxyEventV2 {
  const { pathParameters: _previous, ...rest } = event;
  const entries = Object.entries({
    ...rest,
    routeKey: route.routeKey,
    requestContext: { ...event.requestContext, routeKey: route.routeKey },
  });
  const at = entries.findIndex(([key]) => key === 'requestContext') + 1;
  if (route.pathParameters !== undefined) entries.splice(at, 0, ['pathParameters', route.pathParameters]);
  return Object.fromEntries(entries) as unknown as APIGatewayProxyEventV2;
}
