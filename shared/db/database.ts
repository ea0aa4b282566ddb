// One database API over both drivers (postgres.js for PostgreSQL, PGlite embedded). It papers over
// their different result shapes once and maps PostgreSQL errors to domain errors at this boundary.
import { mkdir } from 'node:fs/promises';
import type { SQL } from 'drizzle-orm';
import { sql } from './sql.ts';
import { PgDialect, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { PGlite, QueryOptions } from '@electric-sql/pglite';
import type { Sql } from 'postgres';
import { mapDatabaseError } from './database-errors.ts';
import { ServiceUnavailableError } from '#shared/errors.ts';
import type { PglitePreparedStatements } from './pglite-prepared.ts';
import { renderStatement, type RenderedStatement } from './render-sql.ts';

/** Drizzle bound either to the whole database or to one transaction. */
export type Orm = PgDatabase<PgQueryResultHKT>;
export type DriverName = 'postgres' | 'pglite';
export type Row = Record<string, unknown>;

export interface TransactionOptions {
  /** Applied with SET LOCAL semantics, so no session state outlives the transaction. */
  statementTimeoutMs?: number;
  lockTimeoutMs?: number;
}

/** What repositories run statements against: the database itself or an open transaction. */
export interface Queryable {
  /** Runs a drizzle query builder; driver errors come back as domain errors. */
  query<T>(build: (orm: Orm) => PromiseLike<T>): Promise<T>;
  /** Runs one parameterized statement and returns its rows. */
  rows<T extends Row = Row>(statement: SQL): Promise<T[]>;
  /** Runs one parameterized statement for its effect and returns the number of rows it touched. */
  run(statement: SQL): Promise<number>;
  /** Runs work in a transaction (a savepoint when already inside one). */
  transaction<T>(work: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

export interface Database extends Queryable {
  readonly driver: DriverName;
  /**
   * Sends the statements at once on one connection and answers each one's rows, or its error, on its
   * own: outside a transaction a failed statement leaves the others be. On PostgreSQL they leave in
   * one write and wake one backend, where statements sent to separate connections of the pool cost a
   * write, a wake-up and a reply to read each; the backend runs them in turn. PGlite, one connection,
   * runs them in turn too. A lone statement is sent the ordinary way, on no reserved connection.
   */
  rowsTogether(statements: readonly SQL[]): Array<Promise<Row[]>>;
  /**
   * Runs one statement that PostgreSQL refuses inside a transaction (CREATE or DROP INDEX
   * CONCURRENTLY) on a connection of its own, with session-level timeouts that are reset before the
   * connection goes back to the pool: SET LOCAL has no transaction to live in there.
   */
  runOutsideTransaction(statement: SQL, options: Required<TransactionOptions>): Promise<void>;
  /** Applies the committed drizzle-kit migrations in `folder`; safe when several processes start at once. */
  applyMigrations(folder: string): Promise<void>;
  close(): Promise<void>;
}

type MigrationRunner = (folder: string) => Promise<void>;
/** Runs one statement on a connection of its own, with the session timeouts set and then reset. */
type SessionStatementRunner = (statement: SQL, options: Required<TransactionOptions>) => Promise<void>;

/** SET takes no bind parameters: the timeouts are written as whole milliseconds, checked here. */
function sessionTimeoutStatements(options: Required<TransactionOptions>): string[] {
  for (const value of [options.statementTimeoutMs, options.lockTimeoutMs]) {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`a timeout must be whole milliseconds, not ${value}`);
  }
  return [`set statement_timeout = ${options.statementTimeoutMs}`, `set lock_timeout = ${options.lockTimeoutMs}`];
}
const RESET_SESSION_TIMEOUTS = ['reset statement_timeout', 'reset lock_timeout'];
// Kept outside `platform` because the first migration creates that schema itself.
const MIGRATIONS_CONFIG = { migrationsSchema: 'drizzle', migrationsTable: '__platform_migrations' } as const;
/** Key of the advisory lock that serialises platform migrations across processes. */
const MIGRATION_LOCK_KEY = 7_310_001;

interface ExecuteResult {
  rows?: Row[];
  affectedRows?: number;
  count?: number;
}

/** postgres.js answers an array with `count`; PGlite answers `{rows, affectedRows}`. */
function rowsOf(result: unknown): Row[] {
  if (Array.isArray(result)) return result as Row[];
  return (result as ExecuteResult).rows ?? [];
}

function countOf(result: unknown): number {
  const shaped = result as ExecuteResult;
  return shaped.count ?? shaped.affectedRows ?? rowsOf(result).length;
}

async function mapped<T>(work: () => PromiseLike<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw mapDatabaseError(error);
  }
}

class OrmQueryable implements Queryable {
  constructor(protected readonly orm: Orm) {}

  query<T>(build: (orm: Orm) => PromiseLike<T>): Promise<T> {
    return mapped(() => build(this.orm));
  }

  async rows<T extends Row = Row>(statement: SQL): Promise<T[]> {
    return rowsOf(await mapped(() => this.orm.execute(statement))) as T[];
  }

  async run(statement: SQL): Promise<number> {
    return countOf(await mapped(() => this.orm.execute(statement)));
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    return mapped(() =>
      this.orm.transaction(async (tx) => {
        // SET cannot take bind parameters; set_config(..., true) is the transaction-local form.
        if (options.statementTimeoutMs !== undefined) {
          await tx.execute(sql`select set_config('statement_timeout', ${String(options.statementTimeoutMs)}, true)`);
        }
        if (options.lockTimeoutMs !== undefined) {
          await tx.execute(sql`select set_config('lock_timeout', ${String(options.lockTimeoutMs)}, true)`);
        }
        return work(new OrmQueryable(tx as unknown as Orm));
      }),
    );
  }
}

/**
 * Which statement texts a postgres.js connection keeps as named prepared statements. drizzle runs
 * every statement unprepared, so PostgreSQL parses and plans it anew each time: for the platform's
 * larger statements (the caller and site of every tenant request) that costs more than running them.
 * Preparing keeps the parse and, after a few runs, the plan. Each prepared text stays in every
 * connection's memory until the connection is recycled, and record queries come in as many shapes as
 * clients make up, so only the first `limit` distinct texts of the process are prepared; later
 * ones run unprepared as before. The statements of every request come first and stay hot.
 */
export class PreparedStatementBudget {
  private readonly admitted = new Set<string>();

  constructor(private readonly limit: number) {}

  admit(text: string): boolean {
    if (this.admitted.has(text)) return true;
    if (this.admitted.size >= this.limit) return false;
    this.admitted.add(text);
    return true;
  }
}

const PREPARED_STATEMENT_LIMIT = 500;

/**
 * Raw statements outside transactions: rendered here in one pass (render-sql.ts) and handed to the
 * driver, which runs them as named prepared statements within the budget.
 */
abstract class RenderingQueryable extends OrmQueryable {
  protected readonly dialect = new PgDialect();

  protected abstract send(query: RenderedStatement): Promise<unknown>;

  private execute(statement: SQL): Promise<unknown> {
    const query = renderStatement(statement, this.dialect);
    return mapped(() => this.send(query));
  }

  override async rows<T extends Row = Row>(statement: SQL): Promise<T[]> {
    return rowsOf(await this.execute(statement)) as T[];
  }

  override async run(statement: SQL): Promise<number> {
    return countOf(await this.execute(statement));
  }
}

/** postgres.js: prepared within the budget (none behind RDS Proxy). */
class PostgresQueryable extends RenderingQueryable {
  constructor(
    orm: Orm,
    private readonly client: Sql,
    private readonly budget: PreparedStatementBudget | undefined,
  ) {
    super(orm);
  }

  protected send(query: RenderedStatement, connection: Sql = this.client): Promise<unknown> {
    const prepare = this.budget?.admit(query.sql) ?? false;
    return connection.unsafe(query.sql, query.params as never[], { prepare });
  }

  rowsTogether(statements: readonly SQL[]): Array<Promise<Row[]>> {
    // One statement (or none) goes the ordinary way: a reserved connection only pays for itself when
    // it carries more.
    if (statements.length <= 1) return statements.map((statement) => this.rows(statement));
    const queries = statements.map((statement) => renderStatement(statement, this.dialect));
    // postgres.js writes what a connection was given in one tick as one write; a reserved connection
    // is the way to give it all of them.
    const reserved = this.client.reserve();
    // When the connection is lost under the batch (the server ended it, the socket broke: answered
    // 503), a statement still waiting its turn in the reserved connection's own queue (behind one
    // that first asks the server for its parameter types) is never answered by postgres.js: every
    // statement of the batch is answered with the loss instead.
    let connectionLost: (reason: unknown) => void = () => undefined;
    const lost = new Promise<never>((_resolve, reject) => {
      connectionLost = reject;
    });
    lost.catch(() => undefined);
    const answers = queries.map((query) => {
      const answer = mapped(async () => rowsOf(await this.send(query, await reserved)));
      answer.catch((error: unknown) => {
        if (error instanceof ServiceUnavailableError) connectionLost(error);
      });
      return Promise.race([answer, lost]);
    });
    // Back to the pool once every statement has answered, either way; a failed reserve holds nothing.
    // A lost connection is not given back: postgres.js has moved it to its closed connections
    // already, to be made anew, and release would list the dead one as open, where the next statement
    // fails on it and the pool never gets the place back (a few server restarts left every request
    // waiting).
    void Promise.allSettled(answers)
      .then(async (settled) => {
        const connection = await reserved;
        if (settled.some((answer) => answer.status === 'rejected' && answer.reason instanceof ServiceUnavailableError)) return;
        connection.release();
      })
      .catch(() => undefined);
    return answers;
  }
}

/** PGlite's parsers as drizzle sets them for raw statements: dates, times and numeric arrays stay text. */
const PGLITE_TEXT_TYPES = [1114, 1184, 1186, 1082, 1231, 1115, 1185, 1187, 1182] as const;

/** PGlite: prepared within the budget through its protocol (pglite-prepared.ts), with drizzle's parsers. */
class PgliteQueryable extends RenderingQueryable {
  private readonly options: QueryOptions = {
    rowMode: 'object',
    parsers: Object.fromEntries(PGLITE_TEXT_TYPES.map((type) => [type, (value: string) => value])),
  };

  constructor(
    orm: Orm,
    private readonly client: PGlite,
    private readonly prepared: PglitePreparedStatements,
    private readonly budget: PreparedStatementBudget,
  ) {
    super(orm);
  }

  protected send(query: RenderedStatement): Promise<unknown> {
    if (this.budget.admit(query.sql)) return this.prepared.run(query.sql, query.params, this.options);
    return this.client.query(query.sql, query.params, this.options);
  }

  rowsTogether(statements: readonly SQL[]): Array<Promise<Row[]>> {
    return statements.map((statement) => this.rows(statement));
  }
}

class DrizzleDatabase implements Database {
  constructor(
    private readonly top: PostgresQueryable | PgliteQueryable,
    readonly driver: DriverName,
    private readonly migrationRunner: MigrationRunner,
    private readonly sessionRunner: SessionStatementRunner,
    private readonly closeClient: () => Promise<void>,
  ) {}

  runOutsideTransaction(statement: SQL, options: Required<TransactionOptions>): Promise<void> {
    return mapped(() => this.sessionRunner(statement, options));
  }

  query<T>(build: (orm: Orm) => PromiseLike<T>): Promise<T> {
    return this.top.query(build);
  }

  rows<T extends Row = Row>(statement: SQL): Promise<T[]> {
    return this.top.rows<T>(statement);
  }

  run(statement: SQL): Promise<number> {
    return this.top.run(statement);
  }

  rowsTogether(statements: readonly SQL[]): Array<Promise<Row[]>> {
    return this.top.rowsTogether(statements);
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
    return this.top.transaction(work, options);
  }

  applyMigrations(folder: string): Promise<void> {
    return mapped(() => this.migrationRunner(folder));
  }

  close(): Promise<void> {
    return this.closeClient();
  }
}

export interface PostgresConnectionOptions {
  url: string;
  poolMax?: number;
  /** Named prepared statements pin connections behind RDS Proxy; turn them off there. */
  prepare?: boolean;
  /** statement_timeout of every connection, sent when it connects (unset or 0: the server's). */
  statementTimeoutMs?: number;
}

/**
 * Seconds the driver waits before connecting again after a connection failed, by failures so far
 * (counted across the pool, reset by the first success). postgres.js's default grows to 20 s; the
 * requests queued for a connection wait that long, both while the database is away (each is refused
 * with a 503 only when the attempt made for it fails) and after it is back. Capped at half a second,
 * a request during an outage is answered within about that, and the pool is whole again about that
 * long after the database returns (fault test: test/integration/faults/database-unavailable.test.ts).
 */
function reconnectPauseSeconds(failures: number): number {
  return Math.min(0.01 * 2 ** failures, 0.5);
}

export async function connectPostgres(options: PostgresConnectionOptions): Promise<Database> {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const client = postgres(options.url, {
    max: options.poolMax ?? 10,
    prepare: options.prepare ?? true,
    backoff: reconnectPauseSeconds,
    onnotice: () => undefined,
    connection: {
      application_name: 'tessera',
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
    },
  });
  const orm = drizzle(client) as unknown as Orm;
  const runMigrations: MigrationRunner = async (folder) => {
    const { migrate } = await import('drizzle-orm/postgres-js/migrator');
    // The lock belongs to a session, so migrate through a one-connection client that holds it.
    const single = postgres(options.url, { max: 1, prepare: options.prepare ?? true, onnotice: () => undefined });
    try {
      await single`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
      await migrate(drizzle(single), { migrationsFolder: folder, ...MIGRATIONS_CONFIG });
      await single`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    } finally {
      await single.end({ timeout: 5 });
    }
  };
  const runInSession: SessionStatementRunner = async (statement, timeouts) => {
    const settings = sessionTimeoutStatements(timeouts);
    const query = renderStatement(statement, new PgDialect());
    // A connection of its own for the statement's session settings; reset before it is released.
    const reserved = await client.reserve();
    try {
      for (const setting of settings) await reserved.unsafe(setting);
      await reserved.unsafe(query.sql, query.params as never[], { prepare: false });
    } finally {
      try {
        for (const reset of RESET_SESSION_TIMEOUTS) await reserved.unsafe(reset);
      } finally {
        reserved.release();
      }
    }
  };
  const budget = options.prepare === false ? undefined : new PreparedStatementBudget(PREPARED_STATEMENT_LIMIT);
  return new DrizzleDatabase(new PostgresQueryable(orm, client, budget), 'postgres', runMigrations, runInSession, () =>
    client.end({ timeout: 5 }),
  );
}

/**
 * PGlite's modules, imported lazily so Lambda bundles, which never use it, do not carry its 27 MB.
 * The imports sit inside the condition: esbuild drops a branch its defines make false, import()
 * chunks and all, where an unused function's import() calls would still be written as chunks.
 */
async function importPglite() {
  if (process.env.TESSERA_BUNDLE_EMBEDDED_DATABASE !== 'excluded') {
    const [{ PGlite }, { PglitePreparedStatements }, { drizzle }, { migrate }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('./pglite-prepared.ts'),
      import('drizzle-orm/pglite'),
      import('drizzle-orm/pglite/migrator'),
    ]);
    return { PGlite, PglitePreparedStatements, drizzle, migrate };
  }
  throw new Error('this bundle carries no embedded database: set DATABASE_URL or DATABASE_SECRET_ARN');
}

/**
 * Opens PGlite at `dataDir` (a folder, or `memory://` for a throwaway database); a new one starts
 * from `template` (a `dumpDataDir` tarball) when given, instead of a cluster made anew.
 */
export async function connectPglite(dataDir: string, template?: Blob): Promise<Database> {
  const { PGlite, PglitePreparedStatements, drizzle, migrate } = await importPglite();
  if (!dataDir.includes('://')) await mkdir(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir, template === undefined ? {} : { loadDataDir: template });
  const orm = drizzle(client);
  // PGlite is one connection in one process: nothing else can migrate at the same time.
  const runMigrations: MigrationRunner = async (folder) => {
    await migrate(orm, { migrationsFolder: folder, ...MIGRATIONS_CONFIG });
  };
  const top = new PgliteQueryable(
    orm as unknown as Orm,
    client,
    new PglitePreparedStatements(client),
    new PreparedStatementBudget(PREPARED_STATEMENT_LIMIT),
  );
  // One connection: the settings are set and reset around the statement (PGlite accepts the
  // timeouts without enforcing them, having nothing to wait for).
  const runInSession: SessionStatementRunner = async (statement, timeouts) => {
    const settings = sessionTimeoutStatements(timeouts);
    const query = renderStatement(statement, new PgDialect());
    try {
      for (const setting of settings) await client.exec(setting);
      await client.query(query.sql, query.params);
    } finally {
      for (const reset of RESET_SESSION_TIMEOUTS) await client.exec(reset);
    }
  };
  return new DrizzleDatabase(top, 'pglite', runMigrations, runInSession, () => client.close());
}
