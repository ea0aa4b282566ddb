// One round trip for a signed-in tenant request: the caller (as authenticateBearer reads them), the
// site the Host or X-Tenant names, and the caller's standing on that site. A route may fuse a read
// of its own into the same statement: it gets the value back when the statement succeeds, and
// undefined when it failed (the context is then read alone, so a fused read can only cost a retry).
// On a route that names an app, whether the caller holds any role on the site rides along when the
// site's schema can be guessed (the one the same host resolved to before), and for a caller who held
// one when last seen, what their roles grant in that app too: that read is as costly as the rest of
// the statement, and most callers hold no role. Either is used only when the site the statement
// resolved has that schema, so a wrong guess costs the ordinary second read; so does a caller who
// has come to hold a role since.
// On PostgreSQL a route's read goes as a statement of its own, sent with the caller-and-site
// statement on one connection (Database.rowsTogether): fused in, it made every request's statement
// one that PostgreSQL plans anew (a custom plan for the read's filters), paying about a millisecond
// of planning for the caller-and-site part as well, which on its own runs on a cached generic plan.
// Sent on two connections, each statement cost the process a write and the database a wake-up. Nothing
// the read finds is returned before the caller's checks pass, either way. PGlite has one connection,
// so there the read stays fused into a single statement.
// A caller's next reads within CONTEXT_REUSE_MS send the read with only a guard that the rows their
// context came from are unchanged and the token is not revoked (context-reuse.ts); on PostgreSQL the
// guard too is a statement of its own, sent with the read, for the same reason as above, except
// before a read by key, whose statement keeps one plan whatever is fused into it.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { PgDialect } from 'drizzle-orm/pg-core';
import { aroundTemplate, sentRepeatedly, type StatementTemplate } from '#shared/db/render-sql.ts';
import { principalColumns, principalFromRow, type PrincipalRow } from '#shared/auth/authenticate.ts';
import type { Principal } from '#shared/auth/principal.ts';
import type { TokenClaims } from '#shared/auth/tokens.ts';
import type { Database } from '#shared/db/database.ts';
import type { CallerCounting, CountingSql } from '#shared/rate-limit/counters.ts';
import {
  hostName,
  missingTenant,
  tenantFromRow,
  tenantMatchSql,
  type TenantHint,
  type TenantLookup,
  type TenantRow,
} from './resolve-tenant.ts';
import { rememberStanding, standingColumns, standingFromRow } from './site-access.ts';
import type { Tenant } from './tenant.ts';
import type { SchemaScopedSite } from '#shared/db/sql-identifiers.ts';
import { holdsAnyRoleSql, rolePermissionsSql } from './role-grants.ts';
import {
  contextGuardSql,
  contextHoldsSql,
  contextReadStart,
  contextVersionSql,
  guardedByContextSql,
  RememberedContexts,
  type ContextGuard,
  type ContextSources,
} from './context-reuse.ts';

type ContextRow = PrincipalRow &
  Partial<TenantRow> & {
    is_admin: boolean | null;
    is_owner: boolean | null;
    member_permissions: string[] | null;
    site_permissions: string[];
    fused?: unknown;
    holds_roles?: boolean | null;
    app_role_permissions?: string[] | null;
    /** The versions of the rows the context was read from (context-reuse.ts), when asked for. */
    context_version?: string | null;
  };

/**
 * A route's read fused with the caller's context: a scalar subquery, and whether it finds records
 * by their key (a statement PostgreSQL plans once and keeps; context-reuse.ts says what that allows).
 */
export interface ContextRead {
  statement: SQL;
  byKey?: boolean;
}

export interface SignedInTenantContext {
  principal: Principal;
  lookup: TenantLookup;
  /** The fused read's value; undefined when none was asked for or its statement failed. */
  fused: unknown;
  /**
   * What the caller's roles grant in the route's app, when `roles` was asked for and its schema is
   * the resolved site's; undefined otherwise (the caller then reads them itself).
   */
  rolePermissions?: string[];
  /** Whether the caller holds any role on the site, when `roles` was asked for and its schema is the resolved site's. */
  holdsRoles?: boolean;
}

/** The roles read to fuse: the app a route names, in the schema its host resolved to before. */
export interface RolesGuess {
  site: SchemaScopedSite;
  appSlug: string;
  /** Read what the roles grant in the app too, not only whether any is held (the caller held one before). */
  grants: boolean;
}

function contextStatement(
  claims: TokenClaims,
  hint: TenantHint,
  fused: SQL | undefined,
  counting: CountingSql | undefined,
  roles: RolesGuess | undefined,
  versioned: boolean,
): SQL {
  const grantsColumn = roles?.grants ? sql`, (${rolePermissionsSql(roles.site, sql`u.id`, roles.appSlug)}) as app_role_permissions` : sql``;
  const rolesColumn = roles === undefined ? sql`` : sql`, ${holdsAnyRoleSql(roles.site, sql`u.id`)} as holds_roles${grantsColumn}`;
  const versionColumn = versioned
    ? sql`, ${contextVersionSql(contextSources(hint, sql`u.id`, sql`t.site_id`, sql`t.organization_id`))} as context_version`
    : sql``;
  return sql`${counting === undefined ? sql`` : counting.withClause} select ${principalColumns(claims.tokenId, claims.familyId)}, t.*,
      ${standingColumns(sql`t.site_id`, sql.raw('m'), sql`u.id`)}${fused === undefined ? sql`` : sql`, (${fused}) as fused`}${rolesColumn}${
        counting === undefined ? sql`` : sql`, ${counting.column}`
      }${versionColumn}
    from platform.users u
    left join lateral (${tenantMatchSql(hint)}) t on true
    left join platform.organization_members m on m.organization_id = t.organization_id and m.user_id = u.id
    where u.uuid = ${claims.subject}`;
}

function contextSources(hint: TenantHint, userId: SQL, siteId: SQL, organizationId: SQL): ContextSources {
  return { userId, siteId, organizationId, hostName: hostName(hint.host) };
}

/** Contexts read for a fused read, by token, host, tenant header and roles guess (context-reuse.ts). */
const rememberedContexts = new RememberedContexts<ContextRow>();

function reuseKey(claims: TokenClaims, hint: TenantHint, roles: RolesGuess | undefined): string {
  const rolesKey = roles === undefined ? '' : `${roles.site.schemaName}\n${roles.appSlug}\n${String(roles.grants)}`;
  return `${claims.tokenId}\n${hint.host}\n${hint.tenantHeader ?? ''}\n${rolesKey}`;
}

/** What the guard of a remembered context checks again: its rows' versions, and the token. */
function contextGuardOf(row: ContextRow, claims: TokenClaims, hint: TenantHint): ContextGuard {
  const sources = contextSources(hint, sql`${row.id}`, sql`${Number(row.site_id)}`, sql`${Number(row.organization_id)}`);
  return { sources, version: row.context_version!, tokenId: claims.tokenId, familyId: claims.familyId };
}

/**
 * A remembered context's guard: its condition, the statement of its own that tests it, and the
 * templates of templated reads (render-sql.ts) with the guard around them.
 */
interface RememberedGuard {
  holds: SQL;
  alone: SQL;
  aroundReads: WeakMap<StatementTemplate, StatementTemplate | null>;
}

const dialect = new PgDialect();

/**
 * The guards of remembered contexts, by their row. The guard depends only on what the context was
 * remembered under (the token, the host) and on the row, so it is built once per remembered context,
 * and its statement of its own rendered once, not on every read it serves.
 */
const rememberedGuards = new WeakMap<ContextRow, RememberedGuard>();

function rememberedGuard(row: ContextRow, claims: TokenClaims, hint: TenantHint): RememberedGuard {
  let guard = rememberedGuards.get(row);
  if (guard === undefined) {
    const holds = contextHoldsSql(contextGuardOf(row, claims, hint));
    guard = { holds, alone: sentRepeatedly(contextGuardSql(holds)), aroundReads: new WeakMap() };
    rememberedGuards.set(row, guard);
  }
  return guard;
}

/**
 * The fused read under a remembered context's guard: its value when the context still stands,
 * undefined when it no longer does or the statement failed (the context is then read anew).
 */
async function readUnderRememberedContext(
  db: Database,
  claims: TokenClaims,
  hint: TenantHint,
  row: ContextRow,
  fused: ContextRead,
): Promise<{ fused: unknown } | undefined> {
  try {
    const guard = rememberedGuard(row, claims, hint);
    // In the read's statement where context-reuse.ts says so. On PostgreSQL a record's walk of six
    // records ran 7% more requests a second this way (three alternating runs) at 10% less process
    // CPU per request; a list with a range filter, fused too, ran 17% fewer.
    if (db.driver !== 'postgres' || fused.byKey === true) {
      const statement = aroundTemplate(fused.statement, (read) => guardedByContextSql(read, guard.holds), guard.aroundReads, dialect);
      const [answer] = await db.rows<{ holds: boolean; fused: unknown }>(statement);
      return answer?.holds === true ? { fused: answer.fused } : undefined;
    }
    // The guard first, then the read, on one connection; the read's value is used only when the guard holds.
    const [guardSent, readSent] = db.rowsTogether([guard.alone, sql`select (${fused.statement}) as fused`]);
    const [[held], [read]] = await Promise.all([guardSent!, readSent!]);
    return held?.holds === true ? { fused: read?.fused } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads caller and site together, and with `counting` adds the request to the caller's rate limits
 * in the same statement. Throws the caller's 401 (unknown, revoked, disabled, stale token); a
 * missing site is reported in `lookup` for the caller to judge.
 */
export async function signedInTenantContext(
  db: Database,
  claims: TokenClaims,
  hint: TenantHint,
  fused?: ContextRead,
  counting?: CallerCounting,
  roles?: RolesGuess,
  reuseMs = 0,
): Promise<SignedInTenantContext> {
  const countingSql = counting?.sqlFor(claims.subject);
  // Only a fused read whose count needs no statement may reuse a context, and only such a read's
  // context is remembered (context-reuse.ts).
  const reuses = reuseMs > 0 && fused !== undefined && countingSql === undefined;
  const key = reuses ? reuseKey(claims, hint, roles) : '';
  const remembered = reuses ? rememberedContexts.reusable(key, reuseMs) : undefined;
  if (remembered !== undefined) {
    const read = await readUnderRememberedContext(db, claims, hint, remembered, fused!);
    if (read !== undefined) {
      counting?.settle(undefined);
      return contextOfRow(remembered, claims, hint, read.fused, roles);
    }
    rememberedContexts.forget(key);
  }
  const start = contextReadStart();
  const [contextSent, readSent] =
    fused !== undefined && db.driver === 'postgres'
      ? db.rowsTogether([contextStatement(claims, hint, undefined, countingSql, roles, reuses), sql`select (${fused.statement}) as fused`])
      : [];
  // The read on its own answers its value, or undefined when it failed (the route then reads the ordinary way).
  const separateRead = readSent?.then(
    ([read]) => read?.fused,
    () => undefined,
  );
  const inlineRead = readSent === undefined ? fused?.statement : undefined;
  let row: ContextRow | undefined;
  let fusedValue: unknown;
  let rolesRead = roles;
  try {
    [row] = (await (contextSent ?? db.rows(contextStatement(claims, hint, inlineRead, countingSql, roles, reuses)))) as ContextRow[];
    fusedValue = row?.fused;
  } catch (error) {
    // A failed statement counted nothing (it rolled back as a whole), so the retry counts once. A
    // guessed schema that is gone (a deleted site) fails it too.
    if (inlineRead === undefined && roles === undefined) throw error;
    rolesRead = undefined;
    [row] = await db.rows<ContextRow>(contextStatement(claims, hint, undefined, countingSql, undefined, false));
  }
  if (separateRead !== undefined) fusedValue = await separateRead;
  counting?.settle(row?.rate_limit);
  const context = contextOfRow(row, claims, hint, fusedValue, rolesRead);
  // Remembered only once every check above has passed, for a site found, and for a caller holding
  // no role there: role grants are not under the guard.
  if (row?.context_version !== undefined && row.context_version !== null && 'found' in context.lookup && context.holdsRoles !== true) {
    const { fused: _read, rate_limit: _counts, ...kept } = row;
    rememberedContexts.remember(key, kept as ContextRow, start);
  }
  return context;
}

/** The caller's context from its row: throws the caller's 401; a missing site is in `lookup`. */
function contextOfRow(
  row: ContextRow | undefined,
  claims: TokenClaims,
  hint: TenantHint,
  fusedValue: unknown,
  rolesRead: RolesGuess | undefined,
): SignedInTenantContext {
  const principal = principalFromRow(row, claims);
  if (row!.site_id === null || row!.site_id === undefined) return { principal, lookup: missingTenant(hint), fused: undefined };
  const tenant: Tenant = tenantFromRow(row as ContextRow & TenantRow);
  rememberStanding(tenant, principal.id, standingFromRow(row));
  // Only the resolved site's own schema answers for its roles. A caller holding none is granted
  // nothing by them; one holding some whose grants were not read reads them the ordinary way.
  if (rolesRead === undefined || rolesRead.site.schemaName !== tenant.schemaName)
    return { principal, lookup: { found: tenant }, fused: fusedValue };
  const holdsRoles = row!.holds_roles === true;
  const rolePermissions = !holdsRoles ? [] : rolesRead.grants ? (row!.app_role_permissions ?? []) : undefined;
  return { principal, lookup: { found: tenant }, fused: fusedValue, rolePermissions, holdsRoles };
}
