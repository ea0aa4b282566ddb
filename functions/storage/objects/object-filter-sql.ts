// Compiles the object list filters and the search body into SQL conditions over `objects o`, for
// object-repository.ts (services hand it the parsed query, never SQL).
// Values are bound parameters; column names come from the fixed tables below, never from input.
// The `file*` filters match the bucket-relative path (DECISIONS); `search` matches name and path.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { containsPattern, startsWithPattern } from '#shared/text/like-patterns.ts';
import type { StorageCaller } from '../storage-env.ts';
import type { Visibility } from '../buckets/bucket-schemas.ts';
import type { ListObjectsQuery, ObjectOrderingField, SearchBody } from './object-schemas.ts';

const ORDER_COLUMNS: Record<ObjectOrderingField, string> = {
  created_at: 'o.created_at',
  updated_at: 'o.updated_at',
  size: 'o.size',
  filename: 'o.filename',
  path: 'o.file_path',
};

export function orderTerms(terms: ReadonlyArray<{ field: ObjectOrderingField; descending: boolean }>): SQL {
  const chosen = terms.length > 0 ? terms : [{ field: 'created_at' as const, descending: true }];
  return sql.raw(
    [...chosen.map(({ field, descending }) => `${ORDER_COLUMNS[field]} ${descending ? 'desc' : 'asc'}`), 'o.id asc'].join(', '),
  );
}

function compare(column: string, operator: '>=' | '<=' | '>' | '<', value: number | Date | undefined): SQL[] {
  if (value === undefined) return [];
  if (!(value instanceof Date)) return [sql`${sql.raw(column)} ${sql.raw(operator)} ${value}`];
  // Instants go as ISO text with a cast: the two drivers serialise Date parameters differently.
  const instant = sql`${value.toISOString()}::timestamptz`;
  // Answers show times to the millisecond, the database keeps microseconds: "at or before" a
  // shown time covers its whole millisecond, so a record's own created_at matches it.
  if (operator === '<=') return [sql`${sql.raw(column)} < ${instant} + interval '1 millisecond'`];
  return [sql`${sql.raw(column)} ${sql.raw(operator)} ${instant}`];
}

function userIdsWhere(condition: SQL): SQL {
  return sql`o.created_by in (select u.id from platform.users u where ${condition})`;
}

/** The caller's own objects (`true`) or everyone else's (`false`); an anonymous caller owns none. */
function byMe(column: 'o.created_by' | 'o.modified_by', mine: boolean | undefined, caller: StorageCaller): SQL[] {
  if (mine === undefined) return [];
  const me = caller.principal?.id;
  if (me === undefined) return [mine ? sql`false` : sql`true`];
  return [mine ? sql`${sql.raw(column)} = ${me}` : sql`${sql.raw(column)} is distinct from ${me}`];
}

/**
 * `metadata_search`: a key or a scalar value anywhere in the metadata document (nested objects and
 * arrays included) contains the text, ignoring case. Keys and values are compared as themselves,
 * not as JSON text: quotes and backslashes in a value match as typed, and the document's own
 * punctuation (`{}`, `": "`) matches nothing.
 */
function metadataContains(pattern: string): SQL {
  return sql`exists (select 1 from jsonb_path_query(o.metadata, 'strict $.**') as node(value) where
    (jsonb_typeof(node.value) in ('string', 'number', 'boolean') and (node.value #>> '{}') ilike ${pattern})
    or (jsonb_typeof(node.value) = 'object' and exists (select 1 from jsonb_object_keys(node.value) as k(name) where k.name ilike ${pattern})))`;
}

export function listConditions(query: ListObjectsQuery, caller: StorageCaller, bucketVisibility: Visibility): SQL[] {
  const conditions: SQL[] = [
    ...compare('o.size', '>=', query.size__gte),
    ...compare('o.size', '>=', query.min_size),
    ...compare('o.size', '<=', query.size__lte),
    ...compare('o.size', '<=', query.max_size),
    ...compare('o.size', '>', query.size__gt),
    ...compare('o.size', '<', query.size__lt),
    ...compare('o.created_at', '>=', query.created_at__gte),
    ...compare('o.created_at', '>=', query.created_after),
    ...compare('o.created_at', '<=', query.created_at__lte),
    ...compare('o.created_at', '<=', query.created_before),
    ...compare('o.updated_at', '>=', query.updated_at__gte),
    ...compare('o.updated_at', '<=', query.updated_at__lte),
    ...byMe('o.created_by', query.created_by_me, caller),
    ...byMe('o.modified_by', query.modified_by_me, caller),
  ];
  if (query.search !== undefined) {
    const pattern = containsPattern(query.search);
    conditions.push(sql`(o.filename ilike ${pattern} or o.file_path ilike ${pattern})`);
  }
  if (query.filename__icontains !== undefined) conditions.push(sql`o.filename ilike ${containsPattern(query.filename__icontains)}`);
  if (query.prefix !== undefined) conditions.push(sql`o.file_path like ${startsWithPattern(query.prefix)}`);
  if (query.file !== undefined) conditions.push(sql`o.file_path = ${query.file}`);
  if (query.file__icontains !== undefined) conditions.push(sql`o.file_path ilike ${containsPattern(query.file__icontains)}`);
  if (query.file__startswith !== undefined) conditions.push(sql`o.file_path like ${startsWithPattern(query.file__startswith)}`);
  if (query.file__istartswith !== undefined) conditions.push(sql`o.file_path ilike ${startsWithPattern(query.file__istartswith)}`);
  if (query.metadata_search !== undefined) conditions.push(metadataContains(containsPattern(query.metadata_search)));
  if (query.mimetype !== undefined) conditions.push(sql`o.mimetype = ${query.mimetype.toLowerCase()}`);
  if (query.mimetype__in !== undefined) conditions.push(sql`o.mimetype = any(${sql.param(query.mimetype__in)}::text[])`);
  if (query.mimetype_category !== undefined) conditions.push(sql`o.mimetype like ${`${query.mimetype_category}/%`}`);
  if (query.visibility !== undefined) conditions.push(sql`coalesce(o.visibility, ${bucketVisibility}) = ${query.visibility}`);
  if (query.created_by__username !== undefined) {
    conditions.push(userIdsWhere(sql`lower(u.username) = lower(${query.created_by__username})`));
  }
  if (query.created_by__username__icontains !== undefined) {
    conditions.push(userIdsWhere(sql`u.username ilike ${containsPattern(query.created_by__username__icontains)}`));
  }
  return conditions;
}

export function searchConditions(body: SearchBody): SQL[] {
  const conditions: SQL[] = [];
  if (body.prefix !== undefined && body.prefix !== '') conditions.push(sql`o.file_path like ${startsWithPattern(body.prefix)}`);
  if (body.search !== undefined && body.search !== '') conditions.push(sql`o.filename ilike ${containsPattern(body.search)}`);
  return conditions;
}

export function searchOrder(body: SearchBody): SQL {
  const sort = body.sortBy ?? { column: 'filename' as const, order: 'asc' as const };
  return orderTerms([{ field: sort.column, descending: sort.order === 'desc' }]);
}
