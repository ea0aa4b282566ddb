// A signed-in caller's context (tenant-context.ts) read moments ago, reused by their next reads.
// Reading the caller, the site and their standing is a statement of its own on every request, and
// on a cheap read it is most of the database's work: on a list of 20 rows it cost as much as the
// page. A caller whose reads come in quick succession (a page load, a client paging, a script)
// gets the context read for the first one again for a short while (CONTEXT_REUSE_MS, 500 ms by
// default; 0 turns reuse off), on these conditions:
// - Only for a route's fused read (tenant-context.ts), never for a write, and never when the
//   request must be counted in the database (its rate-limit block is used up).
// - The read goes with a guard, a statement sent just before it on the same connection (inside the
//   read's own statement on PGlite, and for a read by key), and its value is used only when the guard holds: the token is
//   not revoked, and the rows the caller's access comes from are the very rows read before (their
//   row versions): the user (active, not deleted, staff or superuser, the password's cut-off), the
//   site, the Host's domain, the caller's membership and its groups, and their site permissions.
//   Any change to those, made through any process, makes the guard fail and the request reads its
//   context the ordinary way. So logout, a password change, a disabled user, a removed member or
//   a withdrawn site permission take effect at once everywhere.
// - What the guard does not cover (the user's global permissions and groups, a group's
//   permissions, roles) takes effect at once through this process: every request that may write
//   (any method but GET, HEAD and OPTIONS) forgets every remembered context when it starts and
//   when it ends. Made through another process (another Lambda instance), it reaches a context
//   already remembered here within CONTEXT_REUSE_MS. A caller holding roles on the site is never reused.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { BoundedMap } from '#shared/bounded-map.ts';

/** Bounded: a process serving many callers starts over rather than grow without limit. */
const REMEMBERED_LIMIT = 10_000;

interface Remembered<Row> {
  row: Row;
  /** When the statement that read it was sent, and the process's write generation then. */
  readAtMs: number;
  generation: number;
}

/** Bumped by every request that may write, when it starts and when it ends. */
let writeGeneration = 0;

/** Forgets every remembered context: a request that may change who can do what has started or ended. */
export function noteWriteRequest(): void {
  writeGeneration += 1;
}

/** The moment a context read starts: a context read across a write request's end is never reused. */
export function contextReadStart(): { readAtMs: number; generation: number } {
  return { readAtMs: Date.now(), generation: writeGeneration };
}

export class RememberedContexts<Row> {
  private readonly entries = new BoundedMap<string, Remembered<Row>>(REMEMBERED_LIMIT);

  /** The context remembered under `key`, while it may still be reused (read less than `reuseMs` ago). */
  reusable(key: string, reuseMs: number): Row | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.generation !== writeGeneration || Date.now() - entry.readAtMs >= reuseMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.row;
  }

  remember(key: string, row: Row, start: { readAtMs: number; generation: number }): void {
    if (start.generation !== writeGeneration) return;
    this.entries.set(key, { row, ...start });
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}

/** Where a context came from, as the guard checks it again. */
export interface ContextSources {
  userId: SQL;
  siteId: SQL;
  organizationId: SQL;
  hostName: string;
}

/**
 * The versions of the rows a caller's context is read from, as one text: each row's `xmin` changes
 * whenever it is written, a deleted row leaves its part empty and a new one adds to it. Computed
 * by the context statement and again by the guard, from this one definition.
 */
export function contextVersionSql(from: ContextSources): SQL {
  return sql`concat_ws('|',
      coalesce((select v.xmin::text from platform.users v where v.id = ${from.userId}), '-'),
      coalesce((select v.xmin::text from platform.sites v where v.id = ${from.siteId}), '-'),
      coalesce((select string_agg(v.xmin::text || '.' || v.id, ',' order by v.id) from platform.domains v where v.domain = ${from.hostName}), '-'),
      coalesce((select v.xmin::text || ':' || coalesce((
          select string_agg(g.xmin::text || '.' || g.group_id, ',' order by g.group_id)
          from platform.organization_member_groups g where g.member_id = v.id), '')
        from platform.organization_members v where v.organization_id = ${from.organizationId} and v.user_id = ${from.userId}), '-'),
      coalesce((select string_agg(v.xmin::text || '.' || v.permission_id, ',' order by v.permission_id)
        from platform.site_user_permissions v where v.site_id = ${from.siteId} and v.user_id = ${from.userId}), '-'))`;
}

/** What a reused context's guard checks again: the token, and the rows the context was read from. */
export interface ContextGuard {
  sources: ContextSources;
  version: string;
  tokenId: string;
  familyId: string | undefined;
}

/** Whether a reused context still stands: the token is not revoked and its rows are unchanged. */
export function contextHoldsSql(guard: ContextGuard): SQL {
  return sql`not exists(select 1 from platform.revoked_tokens r where r.jti in (${guard.tokenId}, ${guard.familyId ?? null}))
      and ${contextVersionSql(guard.sources)} = ${guard.version}`;
}

/**
 * The guard (`contextHoldsSql`) as a statement of its own, sent with the read on one connection. Its
 * parameters are ids and versions, so PostgreSQL soon runs it on a cached generic plan; fused into
 * a query's statement, it was planned anew with the query's filters on every request (custom plans),
 * which made the pair cost over a quarter more database time than the read alone (pgbench, shape 1).
 */
export function contextGuardSql(holds: SQL): SQL {
  return sql`select ${holds} as holds`;
}

/**
 * A fused read with the guard of a reused context (`contextHoldsSql`), in one statement: `holds`
 * tells whether the context still stands, and the read runs only when it does (its value is null
 * otherwise). On PGlite (one connection) for every read; on PostgreSQL for a read by key, whose
 * statement keeps one generic plan, guard and all, so the guard costs no planning there and spares
 * the process and the database a statement.
 */
export function guardedByContextSql(fused: SQL, holds: SQL): SQL {
  // OFFSET 0 keeps the guard a subquery of its own, evaluated once for both columns.
  return sql`select g.holds, case when g.holds then (${fused}) end as fused
    from (select ${holds} as holds offset 0) g`;
}
