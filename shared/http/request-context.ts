// What a handler knows about its request: who is calling, where the request came from, and the
// runtime's ports. Handlers never see the raw API Gateway event.
import { sql } from '#shared/db/sql.ts';
import { AuthenticationFailedError } from '#shared/errors.ts';
import type { Principal } from '#shared/auth/principal.ts';
import type { RequestLog } from '#shared/logger.ts';
import type { Runtime } from '#shared/runtime/runtime.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import type { ContextRead } from '#shared/tenancy/tenant-context.ts';

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

export type ContextEstablisher = (fused?: ContextRead) => Promise<unknown>;

export class RequestContext {
  principal: Principal | undefined;
  /** The site of a tenant route (routes with `host: 'tenant'` always have one). */
  tenant: Tenant | undefined;
  /** Set on `deferContext` routes until the handler establishes caller and site. */
  private pending: ContextEstablisher | undefined;
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

  /** The pipeline hands a `deferContext` route the work it left undone. */
  defer(establish: ContextEstablisher): void {
    this.pending = establish;
  }

  /**
   * Reads caller and site (and checks access) where the pipeline deferred it; `fused` is a scalar
   * subquery run in the same round trip, whose value comes back (undefined when it failed: the
   * caller then reads the slow way). Once established, a fused subquery runs on its own.
   */
  async establish(fused?: ContextRead): Promise<unknown> {
    const pending = this.pending;
    if (pending !== undefined) {
      this.pending = undefined;
      return pending(fused);
    }
    if (fused === undefined) return undefined;
    const [row] = await this.runtime.db.rows<{ fused: unknown }>(sql`select (${fused.statement}) as fused`);
    return row?.fused;
  }

  private assertEstablished(): void {
    if (this.pending !== undefined) throw new Error('caller and site were read before ctx.establish()');
  }

  /** The signed-in caller; routes with `access: 'user'` or stricter always have one. */
  get user(): Principal {
    this.assertEstablished();
    if (this.principal === undefined) throw new AuthenticationFailedError();
    return this.principal;
  }

  /** The site this tenant request runs for. */
  get site(): Tenant {
    this.assertEstablished();
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
