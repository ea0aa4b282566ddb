// The one home of DESIGN's safe-identifier rule: which names may reach SQL as identifiers, how they
// are quoted, and the schema-scoped site every tenant statement is addressed through. Every group
// quotes schema, table, column and constraint names here, so the rule cannot drift between copies.
import type { SQL } from 'drizzle-orm';
import { sql } from './sql.ts';

/** Lower-case letters, digits and `_`, not starting with a digit: never needs escaping when quoted. */
export const SAFE_IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
/** PostgreSQL's NAMEDATALEN - 1: a longer name would be silently truncated. */
export const MAX_IDENTIFIER_LENGTH = 63;

const RESERVED_SCHEMAS = new Set(['public', 'platform', 'drizzle', 'information_schema']);

/**
 * A site as far as SQL needs it: the schema its tables live in. `schemaName` comes only from the
 * site record (the tenant resolver, a site lookup), never from client input.
 */
export interface SchemaScopedSite {
  readonly schemaName: string;
}

export function isSafeIdentifier(name: unknown): name is string {
  return typeof name === 'string' && SAFE_IDENTIFIER.test(name) && name.length <= MAX_IDENTIFIER_LENGTH;
}

/**
 * A safe identifier holds no `"`, so quoting it is wrapping it: the text drizzle's identifier renders.
 * As one text chunk it costs a statement no objects per name and no escaping pass when rendered.
 */
function quoted(name: string): string {
  return `"${name}"`;
}

/** Quotes a name after the identifier check; a failure here is a bug, never a client error. */
export function identifier(name: string): SQL {
  if (!isSafeIdentifier(name)) throw new Error(`"${name}" is not a safe identifier`);
  return sql.raw(quoted(name));
}

/** A string literal made from a checked identifier (for `data->>'f'`, which indexes must match). */
export function identifierLiteral(name: string): SQL {
  if (!isSafeIdentifier(name)) throw new Error(`"${name}" is not a safe identifier`);
  return sql.raw(`'${name}'`);
}

export class InvalidSchemaNameError extends Error {
  constructor(name: string) {
    super(`"${name}" is not a valid tenant schema name`);
    this.name = 'InvalidSchemaNameError';
  }
}

/** Quotes a tenant schema name after checking it is a safe identifier no platform schema uses. */
export function tenantSchemaIdentifier(name: string): SQL {
  return sql.raw(quotedSchemaName(name));
}

function quotedSchemaName(name: string): string {
  if (!isSafeIdentifier(name) || name.startsWith('pg_') || RESERVED_SCHEMAS.has(name)) throw new InvalidSchemaNameError(name);
  return quoted(name);
}

/** `"<schema>"."<table>"`: a table of the site's schema, the table name coming from code. */
export function tenantTable(site: SchemaScopedSite, table: string): SQL {
  if (!isSafeIdentifier(table)) throw new Error(`"${table}" is not a valid table name`);
  return sql.raw(`${quotedSchemaName(site.schemaName)}.${quoted(table)}`);
}
