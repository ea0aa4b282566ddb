// The typed steps of a schema migration: what each is, how it may be run, and the names its
// tombstones take, and what the planners (migration-plan.ts, migration-plan-jsonb.ts) are given. The
// planner makes the steps; the tasks, preview and rollback read them.
import { createHash } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import type { CompiledTable } from '../table-schema.ts';

/**
 * instant: catalog only. online: a constraint added NOT VALID in the migration's transaction and
 * validated after it (SHARE UPDATE EXCLUSIVE: reads and writes go on), or an index built
 * CONCURRENTLY. data-dependent: reads or rewrites every row and may fail on the data. breaking:
 * loses or refuses data (needs `allow_data_loss`). destructive: removes stored data.
 */
export type StepClass = 'instant' | 'online' | 'data-dependent' | 'breaking' | 'destructive';

export type StepType =
  | 'add_column'
  | 'drop_column'
  | 'rename_column'
  | 'alter_column_type'
  | 'set_not_null'
  | 'drop_not_null'
  | 'set_default'
  | 'drop_default'
  | 'add_unique'
  | 'drop_unique'
  | 'add_check'
  | 'drop_check'
  | 'add_foreign_key'
  | 'drop_foreign_key'
  | 'create_index'
  | 'drop_index'
  | 'drop_search_vector'
  | 'add_search_vector';

/** Rows that would break a step: a WHERE predicate over the table (SQL text, no parameters). */
export interface Preflight {
  predicate: string;
  /** What a violating row is, for the warning: "rows with no value", "values that do not convert to bigint". */
  describes: string;
  /** The migration cannot succeed while such rows exist (otherwise they lose their value). */
  blocking: boolean;
}

/** What a planner compares: the table as materialized and as its new schema would make it. */
export interface PlanInput {
  before: CompiledTable;
  after: CompiledTable;
  /** The new raw schema: its fields' `x-rename-from` hints are read from here. */
  afterSchema: unknown;
  /** Physical names of the foreign-key target tables, by resource name. */
  referencedTables: ReadonlyMap<string, string>;
  /** The stored schema's hash: names the tombstones of dropped columns. */
  baseHash: string;
  /** Whether the text expression casts to `type` (pg_input_is_valid on 16+, a helper on 15). */
  castable: (text: SQL, type: string) => SQL;
}

export interface PlannedStep {
  type: StepType;
  column: string | null;
  /** The constraint or index the step creates or drops. */
  object?: string;
  class: StepClass;
  is_safe: boolean;
  /** `concurrent` steps run before the transaction, outside it (CREATE INDEX CONCURRENTLY). */
  phase: 'transaction' | 'concurrent';
  sql: string[];
  /**
   * Statements run after the transaction has committed, each in a short transaction of its own:
   * VALIDATE CONSTRAINT of what `sql` added NOT VALID (and, for a NOT NULL, the SET NOT NULL the
   * validated CHECK makes scan-free). New writes are checked from the commit on; a failure here
   * reverts the whole migration.
   */
  validate_sql?: string[];
  rollback_sql: string[];
  warning?: string;
  preflight?: Preflight;
  /** Rows that would stop the rollback of this step (a type change back to a narrower type). */
  rollback_preflight?: Preflight;
  /** A dropped column's hidden tombstone: how the sweep removes it, and the rollback once it is gone. */
  tombstone?: { sweep_sql: string[]; rollback_after_sweep: string[] };
}

/** Column types a value of the key type converts into without loss or failure (both planners). */
export const WIDENINGS: Readonly<Record<string, readonly string[]>> = {
  integer: ['bigint', 'double precision', 'text'],
  bigint: ['double precision', 'text'],
  'double precision': ['text'],
  boolean: ['text'],
  uuid: ['text'],
  date: ['text', 'timestamptz'],
  time: ['text'],
  timestamptz: ['text'],
  interval: ['text'],
};

/** Dropped columns are renamed under this prefix until the retention window has passed. */
export const TOMBSTONE_PREFIX = '_tomb_';

/** The tombstone of a column dropped from the schema with hash `baseHash`: the same in preview and execution. */
export function tombstoneName(baseHash: string, column: string): string {
  return `${TOMBSTONE_PREFIX}${createHash('sha256').update(`${baseHash}:${column}`).digest('hex').slice(0, 24)}`;
}

/** The steps in the order their `sql` runs: CONCURRENTLY builds first, then the transaction's. */
export function executionOrder<T extends Pick<PlannedStep, 'phase'>>(steps: readonly T[]): T[] {
  return [...steps.filter((s) => s.phase === 'concurrent'), ...steps.filter((s) => s.phase === 'transaction')];
}

/** The statements of a plan in the order they run (validations last), and its rollback in reverse. */
export function planSql(steps: readonly PlannedStep[]): { executed: string[]; rollback: string[] } {
  const ordered = executionOrder(steps);
  return {
    executed: [...ordered.flatMap((s) => s.sql), ...ordered.flatMap((s) => s.validate_sql ?? [])],
    rollback: [...ordered].reverse().flatMap((s) => s.rollback_sql),
  };
}
