// What a handler knows about its request: who is calling, where the request came from, and the
// runtime's ports. Handlers never see the raw API Gateway event.
import { AuthenticationFailedError } from '#shared/errors.ts';
import type { Principal } from '#shared/auth/principal.ts';
import type { RequestLog } from '#shared/logger.ts';
import type { Runtime } from '#shared/runtime/runtime.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';

export interface RequestInfo {
  method: string;
  /** The path as sent, without the query string. */
  path: string;
  host: string;
  /** `https://host` behind API Gateway, `http://host` on the dev server; for building links. */
  origin: string;
  /** Raw query string without the leading `?`. */
  rawQuery: string;
  /** Lower-cased header names. */
  headers: Readonly<Record<string, string | undefined>>;
  /** From the gateway's request context, never from forwarding headers. */
  sourceIp: string;
  /** The bearer token as sent, when there was one. */
  bearerToken?: string;
}

export class RequestContext {
  principal: Principal | undefined;
  /** The site of a tenant route (routes with `host: 'tenant'` always have one). */
  tenant: Tenant | undefined;
  /**
   * Whether the signed-in caller may work on `tenant`. Always true on tenant routes except those
   * with `access: 'optional'`, which also admit callers without access; false for anonymous callers.
   */
  hasSiteAccess = false;

  constructor(
    readonly requestId: string,
    readonly runtime: Runtime,
    readonly request: RequestInfo,
    readonly log: RequestLog,
  ) {}

  /** The signed-in caller; routes with `access: 'user'` or stricter always have one. */
  get user(): Principal {
    if (this.principal === undefined) throw new AuthenticationFailedError();
    return this.principal;
  }

  /** The site this tenant request runs for. */
  get site(): Tenant {
    if (this.tenant === undefined) throw new Error('site requested on a route that is not tenant-scoped');
    return this.tenant;
  }

  /** The absolute URL of this request's path with some query parameters replaced. */
  urlWithQuery(changes: Record<string, string | undefined>): string {
    const query = new URLSearchParams(this.request.rawQuery);
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) query.delete(key);
      else query.set(key, value);
    }
    const text = query.toString();
    return `${this.request.origin}${this.request.path}${text === '' ? '' : `?${text}`}`;
  }
}
