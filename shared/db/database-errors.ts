// Maps PostgreSQL errors (from postgres.js or PGlite, possibly wrapped by drizzle) to the platform's
// error family, so services reason about conflicts and timeouts, never about SQLSTATE codes.
import {
  AppError,
  ConflictError,
  GatewayTimeoutError,
  ServiceUnavailableError,
  ValidationError,
  type AppErrorOptions,
} from '#shared/errors.ts';

/** What both drivers report about a failed statement, under one set of names. */
export interface PostgresFailure {
  code: string;
  message: string;
  detail?: string;
  constraint?: string;
  table?: string;
  column?: string;
}

export class UniqueViolationError extends ConflictError {
  constructor(
    readonly constraint: string | undefined,
    readonly table: string | undefined,
    options: AppErrorOptions = {},
  ) {
    super('A record with the same unique value already exists', options);
  }
}

export class ForeignKeyViolationError extends ConflictError {
  constructor(
    readonly constraint: string | undefined,
    readonly table: string | undefined,
    options: AppErrorOptions = {},
  ) {
    super('The operation would break a reference between records', options);
  }
}

/** A CHECK constraint refused a value: a 400 naming the constraint (services map it to a field). */
export class CheckViolationError extends ValidationError {
  constructor(
    readonly constraint: string | undefined,
    readonly table: string | undefined,
    options: AppErrorOptions = {},
  ) {
    super(`A value breaks a constraint of the table${constraint === undefined ? '' : ` (constraint "${constraint}")`}`, options);
  }
}

export class StatementTimeoutError extends GatewayTimeoutError {
  constructor(options: AppErrorOptions = {}) {
    super('The database statement took longer than its time limit', options);
  }
}

export class LockTimeoutError extends ConflictError {
  constructor(options: AppErrorOptions = {}) {
    super('The resource is busy; try again shortly', {
      ...options,
      headers: { 'Retry-After': '1', ...options.headers },
    });
  }
}

/**
 * A statement on a user table named a column or the table itself that is not there (42703, 42P01).
 * Record statements are built from the table's schema as the request read it; a schema migration
 * that commits while the statement waits for the table (a rename, a drop) makes that description
 * stale: the request is to be sent again, on the new schema. The record routes map to it (only there:
 * elsewhere these codes mean our own statement is wrong, a 500).
 */
class StaleDefinitionError extends ConflictError {
  constructor(options: AppErrorOptions = {}) {
    super("The table's definition changed while this request ran; send it again.", {
      ...options,
      headers: { 'Retry-After': '1', ...options.headers },
    });
  }
}

/** The StaleDefinitionError for an unknown column or table, else the error as it is. */
export function staleDefinitionOr(error: unknown): unknown {
  const code = readPostgresFailure(error)?.code;
  return code === '42703' || code === '42P01' ? new StaleDefinitionError({ cause: error }) : error;
}

function stringField(source: Record<string, unknown>, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = source[name];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}

/** Finds the driver's error inside drizzle's wrapper and reads it the same way for both drivers. */
export function readPostgresFailure(error: unknown): PostgresFailure | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const fields = current as unknown as Record<string, unknown>;
    const code = stringField(fields, 'code');
    if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) {
      return {
        code,
        message: current.message,
        detail: stringField(fields, 'detail'),
        constraint: stringField(fields, 'constraint_name', 'constraint'),
        table: stringField(fields, 'table_name', 'table'),
        column: stringField(fields, 'column_name', 'column'),
      };
    }
    current = current.cause;
  }
  return undefined;
}

/** `constraint "name"` (or nothing) for a message: which rule of the table a value broke. */
function constraintText(failure: PostgresFailure): string {
  return failure.constraint === undefined ? '' : ` (constraint "${failure.constraint}")`;
}

/** Field errors for the column the database named, if it named one. */
function onColumn(failure: PostgresFailure, message: string): AppErrorOptions['fieldErrors'] {
  return failure.column === undefined ? undefined : { [failure.column]: [message] };
}

/**
 * SQLSTATEs of class 42 that a client's input can cause (an operator or function that does not
 * take the field's type, a name the schema already uses or that is too long); the others in the
 * class (syntax, unknown column or table, privileges) mean our statement is wrong: they stay 500s.
 */
const CLIENT_SYNTAX_RULE_CODES = new Set([
  '42883',
  '42804',
  '42846',
  '42725',
  '42P18',
  '42P10',
  '428C9',
  '42701',
  '42P07',
  '42710',
  '42P16',
  '42611',
  '42622',
  '42P17',
]);

/**
 * What the driver reports when it cannot reach the server or loses the connection: node's socket
 * errors and postgres.js's own codes (a connection ended, closed or destroyed under a query, or not
 * made within its connect timeout). They say nothing about the request, only that the database is
 * away for now: the client is to come back shortly.
 */
const CONNECTION_LOSS_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'CONNECTION_ENDED',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/**
 * SQLSTATEs that mean the server is away or going away, not that the statement is wrong: class 08
 * (connection exceptions), an administrator or crash shutdown (57P01, 57P02), a server starting up
 * (57P03), too many connections (53300).
 */
function isUnavailableState(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';
}

/** Seconds a client should wait before sending again while the database is unavailable. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = '2';

/**
 * Whether the error (or one it wraps) is the driver losing or not reaching the server. The walk
 * stops at a platform error: what it wraps has been given its meaning already (a client's broken-off
 * upload carries the request socket's ECONNRESET, which is not the database's).
 */
function isConnectionLoss(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error && !(current instanceof AppError); depth += 1) {
    const code = (current as unknown as Record<string, unknown>).code;
    if (typeof code === 'string' && CONNECTION_LOSS_CODES.has(code)) return true;
    current = current.cause;
  }
  return false;
}

function databaseUnavailable(cause: unknown): ServiceUnavailableError {
  return new ServiceUnavailableError('The database is not available right now; try again shortly', {
    cause,
    headers: { 'Retry-After': UNAVAILABLE_RETRY_AFTER_SECONDS },
  });
}

/** Returns the domain error for a database failure; anything unknown passes through unchanged. */
export function mapDatabaseError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  if (isConnectionLoss(error)) return databaseUnavailable(error);
  const failure = readPostgresFailure(error);
  if (failure === undefined) return error;
  if (isUnavailableState(failure.code)) return databaseUnavailable(error);
  const options: AppErrorOptions = { cause: error };
  switch (failure.code) {
    case '23505':
      return new UniqueViolationError(failure.constraint, failure.table, options);
    case '23503':
    case '23001':
      return new ForeignKeyViolationError(failure.constraint, failure.table, options);
    case '23502':
      return new ValidationError(`A required value is missing${failure.column === undefined ? '' : ` (field "${failure.column}")`}`, {
        ...options,
        fieldErrors: onColumn(failure, 'This field is required.'),
      });
    case '23514':
      return new CheckViolationError(failure.constraint, failure.table, options);
    case '22001':
    case '22003':
    case '22007':
    case '22008':
    case '22015':
    case '22P02':
      return new ValidationError('A value has the wrong form or is out of range for its field', {
        ...options,
        fieldErrors: onColumn(failure, 'This value has the wrong form or is out of range.'),
      });
    case '22021':
    case '22P05':
      // A NUL byte or a character the database encoding cannot hold came in from a client.
      return new ValidationError('A value contains a character that cannot be stored', options);
    case '57014':
      return new StatementTimeoutError(options);
    case '55P03':
    case '40001':
    case '40P01':
      return new LockTimeoutError(options);
  }
  // Whole classes that only a client's values reach: data exceptions, integrity rules, limits.
  if (failure.code.startsWith('22')) {
    // PostgreSQL's own message stays in the log: it speaks of column types, not of the API's fields.
    return new ValidationError('A value cannot be used here: it is malformed or out of range', {
      ...options,
      fieldErrors: onColumn(failure, 'This value is malformed or out of range.'),
    });
  }
  if (failure.code.startsWith('23')) {
    return new ConflictError(`The change breaks a rule of the table${constraintText(failure)}`, options);
  }
  if (failure.code.startsWith('54')) {
    return new ValidationError('The request goes beyond a database limit (a value, a list or a statement is too large)', options);
  }
  if (CLIENT_SYNTAX_RULE_CODES.has(failure.code)) {
    return new ValidationError('The request asks for an operation that the fields involved do not support', options);
  }
  return error;
}
