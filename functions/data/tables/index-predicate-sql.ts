// The SQL of a declared index's parsed `where` (index-predicate.ts) and the DDL literals it and the
// migration planners write: DDL takes no bind parameters, so literals are rendered from typed values
// here, strings E-quoted, never spliced from client text.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { PredicateError, type Predicate, type PredicateLiteral } from './index-predicate.ts';

/** A literal for DDL, where bind parameters are impossible: E-string quoting escapes `\` and `'`. */
export function sqlLiteral(value: PredicateLiteral): SQL {
  if (value === null) return sql.raw('null');
  if (typeof value === 'boolean') return sql.raw(value ? 'true' : 'false');
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new PredicateError('numbers must be finite');
    return sql.raw(String(value));
  }
  if (value.includes('\u0000')) throw new PredicateError('strings may not contain NUL');
  return sql.raw(`E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`);
}

/** Renders a parsed predicate; `column` gives the SQL of a field (a quoted column or a jsonb path). */
export function renderPredicate(predicate: Predicate, column: (field: string, value?: PredicateLiteral) => SQL): SQL {
  switch (predicate.kind) {
    case 'and':
    case 'or':
      return sql`(${renderPredicate(predicate.left, column)} ${sql.raw(predicate.kind)} ${renderPredicate(predicate.right, column)})`;
    case 'not':
      return sql`(not ${renderPredicate(predicate.operand, column)})`;
    case 'null':
      return sql`(${column(predicate.field)} is ${sql.raw(predicate.negated ? 'not ' : '')}null)`;
    case 'compare':
      return sql`(${column(predicate.field, predicate.value)} ${sql.raw(predicate.operator)} ${sqlLiteral(predicate.value)})`;
  }
}
