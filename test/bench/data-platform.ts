// Set-up shared by the data-service benchmarks (data-list, bulk-create, data-search): the platform
// booted on a fresh bench database with the dev server in front, a site made through the API, a
// plain member with `access_site` on it (not a superuser, so every request takes the ordinary
// access path), an app with a flat_table datasource, and tables defined and materialized through
// the API. Also: the page and count statements the platform's list statement is made of, captured
// once outside the timed path, with the bare server's answer from them, and a database wrapper that records the statements one request runs.
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { loadConfig } from '#shared/config.ts';
import type { Database, Queryable } from '#shared/db/database.ts';
import { tenantBySlug } from '#shared/tenancy/resolve-tenant.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { bootLocal } from '#infra/local/boot.ts';
import { startDevServer } from '#infra/local/dev-server.ts';
import type { TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import { loadTableDescriptor } from '#functions/data/tables/table-lookup.ts';
import { countSql, pageSql } from '#functions/data/records/query/compile.ts';
import { parseListQuery, type ListPlan } from '#functions/data/records/query/list-query.ts';
import { BENCH_ADMIN, benchConfig, openBenchDatabase, type BenchDatabase } from './bench-database.ts';

const ADMIN = BENCH_ADMIN;
const MEMBER = { username: 'bench-member', password: 'bench-member-password-1' };
export const APP_SLUG = 'bench';

export interface Answer {
  status: number;
  body: any; // `any`: set-up answers are read field by field
  bytes: number;
}

/** What the statement counter saw during one request. */
export interface StatementTrace {
  kind: 'rows' | 'run' | 'query' | 'transaction';
  text: string;
  /** Wall time from the call to its answer, in ms (the query's round trip as the handler waits it). */
  ms: number;
}

export interface DataPlatform {
  database: BenchDatabase;
  db: Database;
  url: string;
  /** The member's bearer token and the site header: what every benchmark request carries. */
  headers: Record<string, string>;
  /** The superuser's access token (console lists). */
  adminToken: string;
  tenant: Tenant;
  call(method: string, path: string, body?: unknown): Promise<Answer>;
  /** As the site's administrator (table definitions and schema changes). */
  callAsAdmin(method: string, path: string, body?: unknown): Promise<Answer>;
  /** Defines `name` (flat_table) and materializes it; answers the physical table, quoted. */
  createTable(name: string, schema: unknown): Promise<{ physical: string; descriptor: TableDescriptor }>;
  /** Records the statements the platform runs while `work` runs (nothing else may run meanwhile). */
  trace(work: () => Promise<unknown>): Promise<StatementTrace[]>;
  close(): Promise<void>;
}

/** Wraps the platform's database so a request's statements can be listed; inert unless `on`. */
function tracingDatabase(inner: Database): { db: Database; recorder: { on: boolean; seen: StatementTrace[] } } {
  const recorder = { on: false, seen: [] as StatementTrace[] };
  const dialect = new PgDialect();
  const textOf = (statement: SQL) => dialect.sqlToQuery(statement).sql.replace(/\s+/g, ' ');
  const timed = async <T>(entry: StatementTrace | undefined, work: () => Promise<T>): Promise<T> => {
    if (entry === undefined) return work();
    const started = performance.now();
    try {
      return await work();
    } finally {
      entry.ms = performance.now() - started;
    }
  };
  const record = (kind: StatementTrace['kind'], text: () => string) => {
    if (!recorder.on) return undefined;
    const entry: StatementTrace = { kind, text: text(), ms: Number.NaN };
    recorder.seen.push(entry);
    return entry;
  };
  const wrap = (target: Queryable): Queryable => ({
    query: async (build) => {
      const started = performance.now();
      let entry: StatementTrace | undefined;
      try {
        return await target.query((orm) => {
          const built = build(orm) as PromiseLike<unknown> & { toSQL?: () => { sql: string } };
          entry = record('query', () => built.toSQL?.().sql ?? '(query builder)');
          return built as never;
        });
      } finally {
        if (entry !== undefined) entry.ms = performance.now() - started;
      }
    },
    // Off, a statement goes straight through: the platform pays nothing for the tracer while measured.
    rows: (statement) =>
      recorder.on
        ? timed(
            record('rows', () => textOf(statement)),
            () => target.rows(statement),
          )
        : target.rows(statement),
    run: (statement) =>
      recorder.on
        ? timed(
            record('run', () => textOf(statement)),
            () => target.run(statement),
          )
        : target.run(statement),
    transaction: (work, options) =>
      timed(
        record('transaction', () => 'begin … commit'),
        () => target.transaction((tx) => work(wrap(tx)), options),
      ),
  });
  const wrapped = wrap(inner);
  const db: Database = {
    ...wrapped,
    get driver() {
      return inner.driver;
    },
    applyMigrations: (folder) => inner.applyMigrations(folder),
    runOutsideTransaction: (statement, options) => inner.runOutsideTransaction(statement, options),
    close: () => inner.close(),
    rowsTogether: (statements) => {
      if (!recorder.on) return inner.rowsTogether(statements);
      const entries = statements.map((statement) => record('rows', () => `${textOf(statement)} (sent together)`));
      return inner.rowsTogether(statements).map((answer, index) => timed(entries[index], () => answer));
    },
  };
  return { db, recorder };
}

async function request(
  url: string,
  method: string,
  init: { token?: string; body?: unknown; headers?: Record<string, string> },
): Promise<Answer> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  }
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text), bytes: Buffer.byteLength(text) };
}

function expectStatus(answer: Answer, status: number, what: string): Answer {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
  return answer;
}

export async function startDataPlatform(): Promise<DataPlatform> {
  const baseConfig = loadConfig({});
  const database = await openBenchDatabase(baseConfig.database.poolMax);
  try {
    await mkdir(database.dataDir, { recursive: true });
    const config = benchConfig(database.dataDir);
    const tracing = tracingDatabase(database.db);
    await bootLocal(config, { db: tracing.db });
    const server = await startDevServer(0);
    const api = (method: string, path: string, init: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
      request(`${server.url}${path}`, method, init);

    const admin = expectStatus(await api('POST', '/api/auth/jwt/token/', { body: ADMIN }), 200, 'admin login').body.access as string;
    const org = expectStatus(
      await api('POST', '/api/cloud/organizations/', { token: admin, body: { name: 'Bench org' } }),
      201,
      'organization',
    );
    const orgSlug = org.body.data.slug as string;
    const site = expectStatus(
      await api('POST', `/api/cloud/organizations/${orgSlug}/sites/`, { token: admin, body: { name: 'Bench site' } }),
      201,
      'site',
    );
    const siteSlug = site.body.slug as string;
    expectStatus(
      await api('POST', '/api/cloud/users/', { token: admin, body: { ...MEMBER, email: `${MEMBER.username}@example.com` } }),
      201,
      'member user',
    );
    expectStatus(
      await api('POST', `/api/cloud/organizations/${orgSlug}/members/`, { token: admin, body: { user_slug: MEMBER.username } }),
      201,
      'org member',
    );
    const grant = await api('POST', `/api/cloud/sites/${siteSlug}/users/`, {
      token: admin,
      body: { users: [{ username: MEMBER.username, permissions: ['access_site'] }] },
    });
    if (grant.status >= 300) throw new Error(`site user: ${grant.status} ${JSON.stringify(grant.body)}`);
    const member = expectStatus(await api('POST', '/api/auth/jwt/token/', { body: MEMBER }), 200, 'member login').body.access as string;

    const tenantHeaders = { 'x-tenant': siteSlug };
    // Definitions are an admin's job (manage data); records are the member's.
    const asAdmin = (method: string, path: string, body?: unknown) => api(method, path, { token: admin, body, headers: tenantHeaders });
    expectStatus(await asAdmin('POST', '/api/apps/', { name: APP_SLUG }), 201, 'app');
    expectStatus(
      await asAdmin('POST', `/api/apps/${APP_SLUG}/datasources/`, { name: 'main', provider_type: 'flat_table' }),
      201,
      'datasource',
    );
    const tenant = (await tenantBySlug(database.db, siteSlug))!;

    return {
      database,
      db: database.db,
      url: server.url,
      headers: { authorization: `Bearer ${member}`, ...tenantHeaders },
      adminToken: admin,
      tenant,
      call: (method, path, body) => api(method, path, { token: member, body, headers: tenantHeaders }),
      callAsAdmin: asAdmin,
      createTable: async (name, schema) => {
        expectStatus(
          await asAdmin('POST', `/api/apps/${APP_SLUG}/datasources/main/datatables/`, { name, json_schema: schema }),
          201,
          `table ${name}`,
        );
        expectStatus(await asAdmin('POST', `/api/apps/${APP_SLUG}/datatables/${name}/materialize/`), 200, `materialize ${name}`);
        const { descriptor } = await loadTableDescriptor(database.db, tenant, APP_SLUG, name);
        return { physical: `"${descriptor.schemaName}"."${descriptor.tableName}"`, descriptor };
      },
      trace: async (work) => {
        tracing.recorder.seen = [];
        tracing.recorder.on = true;
        try {
          await work();
        } finally {
          tracing.recorder.on = false;
        }
        return tracing.recorder.seen;
      },
      close: async () => {
        await server.close();
        await database.dispose();
      },
    };
  } catch (error) {
    await database.dispose();
    throw error;
  }
}

/** A statement as it goes to the driver: text with $n placeholders and the bound values. */
export interface CapturedStatement {
  text: string;
  params: unknown[];
  /** The same text and values as a drizzle SQL again, for `Database.rows` (no query building). */
  statement: SQL;
}

/** Rebuilds text + params into a SQL object and checks it renders back to the very same statement. */
export function capture(statement: SQL): CapturedStatement {
  const dialect = new PgDialect();
  const { sql: text, params } = dialect.sqlToQuery(statement);
  const chunks: SQL[] = [];
  let last = 0;
  for (const match of text.matchAll(/\$(\d+)/g)) {
    chunks.push(sql.raw(text.slice(last, match.index)));
    chunks.push(sql`${sql.param(params[Number(match[1]) - 1])}`);
    last = match.index! + match[0].length;
  }
  chunks.push(sql.raw(text.slice(last)));
  const rebuilt = sql.join(chunks, sql``);
  const again = dialect.sqlToQuery(rebuilt);
  if (again.sql !== text || JSON.stringify(again.params) !== JSON.stringify(params))
    throw new Error('captured statement does not render back the same');
  return { text, params, statement: rebuilt };
}

/** The two statements of a list the platform compiles for `query` (page and count), for a bare server. */
export interface CapturedList {
  page: CapturedStatement;
  count: CapturedStatement;
  plan: ListPlan;
  table: TableDescriptor;
}

export function captureList(table: TableDescriptor, query: string): CapturedList {
  const plan = parseListQuery(table, [...new URLSearchParams(query)]);
  return { page: capture(pageSql(table, plan)), count: capture(countSql(table, plan)), plan, table };
}

/**
 * What a bare server does for a list: page and count as two prepared statements sent together on
 * the pool, and the records API's answer (`{data, total, page, page_size}`; `{data, total}` for an
 * aggregation) made with JSON.stringify.
 */
export async function bareListAnswer(db: Queryable, list: CapturedList): Promise<string> {
  const [rows, [counted]] = await Promise.all([
    db.rows<{ record: string }>(list.page.statement),
    db.rows<{ total: unknown }>(list.count.statement),
  ]);
  const data = rows.slice(0, list.plan.pageSize).map((row) => JSON.parse(row.record) as unknown);
  const total = Number(counted!.total);
  if (list.plan.aggregates) return JSON.stringify({ data, total });
  return JSON.stringify({ data, total, page: list.plan.page, page_size: list.plan.pageSize });
}

export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

/** Sequential GETs from a child process (keep-alive fetch); answers each request's latency in ms. */
export function runSequential(options: {
  url: string;
  headers: Record<string, string>;
  warmup: number;
  requests: number;
  maxSeconds: number;
}): Promise<number[]> {
  const script = fileURLToPath(new URL('./sequential-client.mjs', import.meta.url));
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [script, JSON.stringify(options)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(stdout) as number[]) : reject(new Error(`sequential client exited with ${code}: ${stderr}`)),
    );
  });
}

/** Prints the statements one request ran, for the report. */
export function describeTrace(trace: StatementTrace[]): string[] {
  return trace.map(
    (entry, index) =>
      `${String(index + 1).padStart(2)}. [${entry.kind}] ${entry.ms.toFixed(2).padStart(6)} ms  ${entry.text.replace(/\s+/g, ' ').slice(0, 140)}`,
  );
}
