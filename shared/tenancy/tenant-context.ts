// One round trip for a signed-in tenant request: the caller (as authenticateBearer reads them), the
// site the Host or X-Tenant names, and the caller's standing on that site. A route may fuse a read
// of its own into the same statement: it gets the value back when the statement succeeds, and
// undefined when it failed (the context is then read alone, so a fused read can only cost a retry).
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { principalColumns, principalFromRow, type PrincipalRow } from '#shared/auth/authenticate.ts';
import type { Principal } from '#shared/auth/principal.ts';
import type { TokenClaims } from '#shared/auth/tokens.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { CallerCounting, CountingSql } from '#shared/rate-limit/counters.ts';
import { missingTenant, tenantFromRow, tenantMatchSql, type TenantHint, type TenantLookup, type TenantRow } from './resolve-tenant.ts';
import { rememberStanding, standingColumns, standingFromRow } from './site-access.ts';
import type { Tenant } from './tenant.ts';

type ContextRow = PrincipalRow &
  Partial<TenantRow> & {
    is_admin: boolean | null;
    is_owner: boolean | null;
    member_permissions: string[] | null;
    site_permissions: string[];
    fused?: unknown;
  };

export interface SignedInTenantContext {
  principal: Principal;
  lookup: TenantLookup;
  /** The fused read's value; undefined when none was asked for or its statement failed. */
  fused: unknown;
}

function contextStatement(claims: TokenClaims, hint: TenantHint, fused: SQL | undefined, counting: CountingSql | undefined): SQL {
  return sql`${counting === undefined ? sql`` : counting.withClause} select ${principalColumns(claims.tokenId, claims.familyId)}, t.*,
      ${standingColumns(sql`t.site_id`, sql.raw('m'), sql`u.id`)}${fused === undefined ? sql`` : sql`, (${fused}) as fused`}${
        counting === undefined ? sql`` : sql`, ${counting.column}`
      }
    from platform.users u
    left join lateral (${tenantMatchSql(hint)}) t on true
    left join platform.organization_members m on m.organization_id = t.organization_id and m.user_id = u.id
    where u.uuid = ${claims.subject}`;
}

/**
 * Reads caller and site together, and with `counting` adds the request to the caller's rate limits
 * in the same statement. Throws the caller's 401 (unknown, revoked, disabled, stale token); a
 * missing site is reported in `lookup` for the caller to judge.
 */
export async function signedInTenantContext(
  db: Queryable,
  claims: TokenClaims,
  hint: TenantHint,
  fused?: SQL,
  counting?: CallerCounting,
): Promise<SignedInTenantContext> {
  const countingSql = counting?.sqlFor(claims.subject);
  let row: ContextRow | undefined;
  let fusedValue: unknown;
  try {
    [row] = await db.rows<ContextRow>(contextStatement(claims, hint, fused, countingSql));
    fusedValue = row?.fused;
  } catch (error) {
    // A failed statement counted nothing (it rolled back as a whole), so the retry counts once.
    if (fused === undefined) throw error;
    [row] = await db.rows<ContextRow>(contextStatement(claims, hint, undefined, countingSql));
  }
  counting?.settle(row?.rate_limit);
  const principal = principalFromRow(row, claims);
  if (row!.site_id === null || row!.site_id === undefined) return { principal, lookup: missingTenant(hint), fused: undefined };
  const tenant: Tenant = tenantFromRow(row as ContextRow & TenantRow);
  rememberStanding(tenant, principal.id, standingFromRow(row));
  return { principal, lookup: { found: tenant }, fused: fusedValue };
}
