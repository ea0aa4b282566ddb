// The floor the users list is measured against: a bare node:http server that does per request what
// the platform does at the database — the principal lookup of shared/auth/authenticate.ts and the
// page query of listUsers (its own statement, userPageStatement, or page and count apart) — through the same Database
// object, and answers the same Envelope C JSON. No JWT verification, no middy chain, no zod, no
// query builder: the caller's token subject and id are fixed at start-up.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Database } from '#shared/db/database.ts';
import { principalStatement } from '#shared/auth/authenticate.ts';
import { userCountStatement, userPageStatement, type UserListFilter, type UserPageRow } from '#functions/console/users/user-repository.ts';

export interface BaselineServer {
  url: string;
  close(): Promise<void>;
}

export interface BaselineCaller {
  /** The access token's `sub` (the user's UUID). */
  subject: string;
  /** The access token's `jti`. */
  tokenId: string;
  /**
   * Page and count as two statements sent together (the data-matrix's bare server), rather than the
   * platform's one statement with the count as its own subquery (users-list).
   */
  separateCount?: boolean;
}

const MAX_PAGE_SIZE = 100;

/** The drivers hand timestamps back as text (drizzle's parsers) or Date; the wire wants ISO. */
function iso(value: string | Date): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

async function answer(db: Database, caller: BaselineCaller, origin: string, url: URL): Promise<{ status: number; body: unknown }> {
  const [principal] = await db.rows<{ revoked: boolean; is_active: boolean; is_deleted: boolean }>(
    principalStatement(caller.subject, caller.tokenId),
  );
  if (principal === undefined || principal.revoked || !principal.is_active || principal.is_deleted) {
    return { status: 401, body: { detail: 'unauthorized' } };
  }
  const pageSize = Math.min(Number(url.searchParams.get('page_size') ?? '20'), MAX_PAGE_SIZE);
  const page = Number(url.searchParams.get('page') ?? '1');
  const search = url.searchParams.get('search') ?? undefined;
  const filter: UserListFilter = { search, isActive: true, ordering: [], page: { page, pageSize } };
  let rows: UserPageRow[];
  let total: number;
  if (caller.separateCount) {
    const [pageRows, [counted]] = await Promise.all([
      db.rows<UserPageRow>(userPageStatement(filter, { withTotal: false })),
      db.rows<{ total: number }>(userCountStatement(filter)),
    ]);
    rows = pageRows;
    total = Number(counted!.total);
  } else {
    rows = await db.rows<UserPageRow>(userPageStatement(filter));
    total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  }
  const lastPage = Math.max(1, Math.ceil(total / pageSize));
  const link = (target: number | undefined) => {
    const query = new URLSearchParams(url.search);
    if (target === undefined) query.delete('page');
    else query.set('page', String(target));
    const text = query.toString();
    return `${origin}${url.pathname}${text === '' ? '' : `?${text}`}`;
  };
  const previousPage = Math.min(page - 1, lastPage);
  return {
    status: 200,
    body: {
      count: total,
      next: page < lastPage ? link(page + 1) : null,
      previous: page > 1 ? link(previousPage === 1 ? undefined : previousPage) : null,
      results: rows.map((row) => ({
        id: row.id,
        uuid: row.uuid,
        username: row.username,
        email: row.email,
        first_name: row.first_name,
        last_name: row.last_name,
        is_active: row.is_active,
        is_staff: row.is_staff,
        is_superuser: row.is_superuser,
        is_deleted: row.is_deleted,
        date_joined: iso(row.date_joined),
        last_login: row.last_login === null ? null : iso(row.last_login),
      })),
    },
  };
}

export async function startBaselineServer(db: Database, caller: BaselineCaller): Promise<BaselineServer> {
  const server = createServer((request, response) => {
    const origin = `http://${request.headers.host ?? '127.0.0.1'}`;
    answer(db, caller, origin, new URL(request.url ?? '/', origin)).then(
      ({ status, body }) => {
        response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
        response.end(JSON.stringify(body));
      },
      (error: unknown) => {
        console.error('baseline server failed to answer', error);
        response.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
        response.end('{"code":"INTERNAL_ERROR"}');
      },
    );
  });
  server.keepAliveTimeout = 65_000; // as the dev server
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
