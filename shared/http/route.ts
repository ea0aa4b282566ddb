// The route table entry: everything the in-Lambda router, the CDK routes and the OpenAPI document
// need to know about one endpoint. Handlers are plain async functions of (context, parsed input).
import type { ZodType } from 'zod';
import type { StreamedBody } from './body-streams.ts';
import { lazySchema } from './lazy-schema.ts';
import type { RequestContext } from './request-context.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call: anyone (`public`, the Authorization header is not even read), anyone with the
 * principal attached when a valid token comes along (`optional`), any signed-in user, a superuser,
 * or the holder of a permission (superusers hold every permission).
 */
export type Access = 'public' | 'optional' | 'user' | 'superuser' | { permission: string };

/**
 * Which host serves it: the platform API host, a tenant (site) host, or both. Tenant routes get the
 * site resolved from the Host header or X-Tenant, and a signed-in caller must have access to it.
 */
export type HostScope = 'platform' | 'tenant' | 'any';

/**
 * How errors of this route are rendered: the generic envelope, `{success: false, ...}`, or the data
 * service's record shape (`{error: 'Validation failed', details: {field: [...]}}`, `{error, detail}`).
 */
export type ErrorStyle = 'generic' | 'success-flag' | 'data';

/**
 * The success body's shape, named after the spec's envelopes: the chain wraps the handler's result
 * in it (answers.ts), and the OpenAPI document reads the same field. `bare` and `none` send the
 * handler's body as it is (`none`: no JSON body, such as 204, bytes or a redirect).
 */
export type EnvelopeKind = 'A' | 'B' | 'C' | 'bare' | 'none';

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

export interface Route<P = unknown, Q = unknown, B = unknown, R = unknown> {
  method: HttpMethod;
  /** API Gateway syntax: `{name}` for a segment, `{name+}` for the greedy rest of the path. */
  path: string;
  /** Console paths: also served without the `/api/cloud` prefix (`/api/cloud/users/` → `/api/users/`). */
  consoleAlias?: boolean;
  summary: string;
  access: Access;
  host: HostScope;
  /**
   * The input schemas, as functions like `response`: a route's schemas are built when a request
   * first reaches it (defineRoute builds each at most once), so a cold start builds only its own.
   */
  params?: () => ZodType<P>;
  query?: () => ZodType<Q>;
  body?: () => ZodType<B>;
  /**
   * The shape of the success answer's data (inside the declared envelope) or, for `bare`, of the
   * whole body: read only by the OpenAPI document, which describes it as any JSON value when absent,
   * and by the test-time response check. A function, so that the schema is built when one of those
   * first asks: a deployed function never does, and its cold start does not pay for building them.
   */
  response?: () => ZodType;
  /** Envelope `none`: the media type of the success answer where it is text (an HTML page), for the OpenAPI document. */
  contentType?: string;
  /**
   * The body is not parsed: the handler gets it as a StreamedBody (file uploads). The dev server
   * then does not buffer it, so an upload of any size passes through with bounded memory.
   */
  streamBody?: boolean;
  /**
   * Integer literals past 2^53 in the body parse as exact bigints (shared/json/exact-json.ts) rather
   * than rounded numbers: the record routes, whose integer fields are PostgreSQL bigints.
   */
  exactIntegers?: boolean;
  envelope: EnvelopeKind;
  /** Envelopes A and B: the `message` of a success (an Outcome may replace it). */
  message?: string;
  errorStyle?: ErrorStyle;
  /**
   * Tenant routes only: the pipeline verifies the token but leaves reading the caller and the site to
   * the handler, which must call `ctx.establish()` first and may fuse its own read into that one
   * statement (the record reads, where the round trip is most of the cost).
   */
  deferContext?: boolean;
  /** A sign-in with `{username, password}`: also limited per source IP and username (DECISIONS). */
  countsAsLogin?: boolean;
  /**
   * Tenant routes only: a caller who holds any unexpired role membership on the site reaches the
   * route even without a site permission (their own roles); the handler decides the rest.
   */
  roleHoldersReach?: boolean;
  /**
   * Never counted against a rate limit (the health checks: a load balancer or monitor polling them
   * must neither be refused nor use up a caller's allowance). Only for public routes.
   */
  unlimited?: boolean;
  /** Status of a result that does not set its own (HttpReply, Outcome); 200 unless given. */
  status?: number;
  handler: (ctx: RequestContext, input: RouteInput<P, Q, B>) => Promise<R>;
}

/** A route whose input types have been checked at its definition and erased for the table. */
export type AnyRoute = Route<never, never, never, unknown>;

/** Keeps the parameter, query and body types of one route tied to its handler. */
export function defineRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined, R = unknown>(
  route: Route<P, Q, B, R>,
): AnyRoute {
  return withBuiltOnce(route) as unknown as AnyRoute;
}

/** The route with each of its schemas built at most once, however often it is asked for. */
function withBuiltOnce<T extends { params?: () => ZodType; query?: () => ZodType; body?: () => ZodType; response?: () => ZodType }>(
  route: T,
): T {
  const once = (schema: (() => ZodType) | undefined) => (schema === undefined ? undefined : lazySchema(schema));
  return { ...route, params: once(route.params), query: once(route.query), body: once(route.body), response: once(route.response) };
}

/** A route whose body arrives as a stream (see `streamBody`) instead of parsed JSON. */
export function defineStreamingRoute<P = Record<string, never>, Q = Record<string, never>, R = unknown>(
  route: Omit<Route<P, Q, StreamedBody, R>, 'body' | 'streamBody'>,
): AnyRoute {
  return { ...withBuiltOnce(route), streamBody: true } as unknown as AnyRoute;
}

/** Every concrete path a route answers on. */
export function servedPaths(route: Pick<Route, 'path' | 'consoleAlias'>): string[] {
  if (route.consoleAlias && route.path.startsWith('/api/cloud/')) {
    return [route.path, route.path.replace(/^\/api\/cloud\//, '/api/')];
  }
  return [route.path];
}
