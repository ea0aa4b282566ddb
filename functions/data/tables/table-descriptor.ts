// What the record and query code needs to know about a materialized table, compiled from its Table
// Schema. The definitions side (datatables, materialization) builds it; the records side (CRUD, the
// filter language, search, aggregation) only reads it. Every identifier in it has passed the
// `^[a-z_][a-z0-9_]*$` check, so SQL builders may quote and use it.

export const FIELD_TYPES = [
  'string',
  'number',
  'integer',
  'boolean',
  'object',
  'array',
  'date',
  'time',
  'datetime',
  'year',
  'yearmonth',
  'duration',
  'geopoint',
  'geojson',
  'any',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const STRING_FORMATS = ['default', 'email', 'uri', 'binary', 'uuid'] as const;
export type StringFormat = (typeof STRING_FORMATS)[number];
/** A geopoint's format decides its one accepted and stored form: `"lon, lat"`, `[lon, lat]` or `{lon, lat}`. */
export type GeopointFormat = 'default' | 'array' | 'object';

export interface FieldConstraints {
  required?: boolean;
  unique?: boolean;
  minimum?: number | string;
  maximum?: number | string;
  minLength?: number;
  maxLength?: number;
  /** An XML Schema regular expression the whole value must match. */
  pattern?: string;
  /**
   * `ecmascript` for a pattern saved before Table Schema patterns were read as XML Schema's dialect,
   * which that dialect cannot read but JavaScript's can: it keeps its old meaning (table-schema.ts).
   */
  patternDialect?: 'ecmascript';
  enum?: unknown[];
}

export interface FieldDescriptor {
  name: string;
  type: FieldType;
  format?: StringFormat | GeopointFormat;
  constraints: FieldConstraints;
  /** The schema's `default`, applied when a record omits the field. */
  default?: unknown;
  /** How an omitted single-field primary key is generated (DECISIONS: string → UUID, integer → identity). */
  generated?: 'uuid' | 'identity';
}

/**
 * How records are stored. `flat_table`: one column per field, named after it. `jsonb`: the primary
 * key in its own column named after the key field, every other field inside the `data` jsonb column.
 */
export type StorageProvider = 'flat_table' | 'jsonb';

/** The column holding every non-key field of a `jsonb` table. */
export const JSONB_DATA_COLUMN = 'data';
/** The stored tsvector column of a table that supports full-text search. */
export const SEARCH_VECTOR_FIELD = 'search_vector';
/** The text search configuration the stored tsvector and the search query both use. */
export const SEARCH_CONFIGURATION = 'simple';

export interface TableDescriptor {
  /** The tenant schema (from the site record) and the physical table inside it. */
  schemaName: string;
  tableName: string;
  provider: StorageProvider;
  /** Every field of the schema except `search_vector`, in schema order. */
  fields: FieldDescriptor[];
  primaryKey: string[];
  /** The table has an `is_deleted` field: deletes are soft. */
  softDelete: boolean;
  /** Present when the schema declares `search_vector`: the fields its tsvector is built from. */
  search?: { sourceFields: string[] };
}
