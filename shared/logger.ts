// Structured JSON logs through Powertools Logger. Every line of a request carries its request id;
// anything that may hold credentials is redacted before it reaches the logger.
import { Logger } from '@aws-lambda-powertools/logger';

type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';

const SENSITIVE_KEY = /authorization|password|passwd|secret|token|cookie|api[-_]?key|private[-_]?key|signature/i;
const REDACTED = '[REDACTED]';

/** A copy of `value` with every member whose name suggests a credential replaced. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    copy[key] = SENSITIVE_KEY.test(key) ? REDACTED : redact(member, depth + 1);
  }
  return copy;
}

/**
 * What may be logged of an error. Drizzle's wrapper puts the statement's bound values (password
 * hashes, secrets) in its message, so only the driver error beneath it is described.
 */
export function describeError(error: unknown): Record<string, unknown> {
  const chain: Array<Record<string, unknown>> = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth += 1) {
    if (!(current instanceof Error)) {
      chain.push({ value: String(current) });
      break;
    }
    const fields = current as unknown as Record<string, unknown>;
    const wrapsQuery = current.name === 'DrizzleQueryError' || 'params' in fields;
    chain.push({
      name: current.name,
      message: wrapsQuery ? 'database query failed' : current.message,
      ...(typeof fields.code === 'string' ? { code: fields.code } : {}),
      ...(wrapsQuery ? {} : { stack: current.stack?.split('\n').slice(0, 6).join('\n') }),
    });
    current = current.cause;
  }
  return { error: chain };
}

export interface RequestLog {
  debug(message: string, extra?: Record<string, unknown>): void;
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

let baseLogger: Logger | undefined;

export function configureLogger(level: LogLevel): Logger {
  // Deployed functions name themselves through POWERTOOLS_SERVICE_NAME; locally everything is tessera.
  baseLogger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'tessera', logLevel: level });
  return baseLogger;
}

function logger(): Logger {
  return baseLogger ?? configureLogger((process.env.LOG_LEVEL as LogLevel | undefined) ?? 'INFO');
}

/**
 * A log bound to one request. Keys are passed per line rather than appended to the shared logger,
 * because the dev server interleaves many requests in one process.
 */
export function requestLog(fields: Record<string, unknown>): RequestLog {
  const write =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (message: string, extra?: Record<string, unknown>): void => {
      logger()[level](message, { ...fields, ...(extra === undefined ? {} : (redact(extra) as Record<string, unknown>)) });
    };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** For start-up and background work outside a request. */
export const systemLog: RequestLog = requestLog({});
