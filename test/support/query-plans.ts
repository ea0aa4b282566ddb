// Plans of statements as the database reports them (EXPLAIN, FORMAT JSON), and what a hierarchy
// read's walk did, from the database's own count: the one recursive statement a
// request sends, run again under EXPLAIN ANALYZE, and the rows its plan nodes produced. Tests hold a
// walk's work bounded with these counts, never with a duration.
import { expect } from 'vitest';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { SQL } from 'drizzle-orm';
import type { Database, Queryable } from '#shared/db/database.ts';
import { renderStatement } from '#shared/db/render-sql.ts';
import { sql } from '#shared/db/sql.ts';
import { statementsDuring } from './statement-capture.ts';
import type { ApiResponse } from './test-app.ts';

/** The members of an EXPLAIN (FORMAT JSON) plan node the tests read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Parent Relationship'?: string;
  'Subplan Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** The plan of `statement` (run too with `analyze`); PGlite answers the JSON as text, PostgreSQL parsed. */
export async function explainPlan(db: Queryable, statement: SQL, options: { analyze?: boolean } = {}): Promise<PlanNode> {
  const how = options.analyze === true ? sql`analyze, format json` : sql`format json`;
  const [row] = await db.rows<{ 'QUERY PLAN': unknown }>(sql`explain (${how}) ${statement}`);
  const explained = row!['QUERY PLAN'];
  const [top] = (typeof explained === 'string' ? JSON.parse(explained) : explained) as Array<{ Plan: PlanNode }>;
  return top!.Plan;
}

/** The node and every node under it, depth first. */
export function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** Rows every node of a plan produced (actual rows × loops), summed over the whole plan. */
export function rowsProduced(plan: PlanNode): number {
  const own = Number(plan['Actual Rows'] ?? 0) * Number(plan['Actual Loops'] ?? 1);
  return own + (plan.Plans ?? []).reduce((sum, child) => sum + rowsProduced(child), 0);
}

/**
 * Rows the plan's scans of tables named `*_edges` read, returned or dropped by a filter (an index
 * probe whose entries a filter drops has still read them): how many edges a walk looked at.
 */
export function edgesRead(plan: PlanNode): number {
  const dropped = Number(plan['Rows Removed by Filter'] ?? 0) + Number(plan['Rows Removed by Index Recheck'] ?? 0);
  const own = /_edges$/.test(String(plan['Relation Name'] ?? ''))
    ? (Number(plan['Actual Rows'] ?? 0) + dropped) * Number(plan['Actual Loops'] ?? 1)
    : 0;
  return own + (plan.Plans ?? []).reduce((sum, child) => sum + edgesRead(child), 0);
}

/** Each recursive walk of a plan (its `Recursive Union` nodes), outermost first. */
export function recursiveWalks(plan: PlanNode): PlanNode[] {
  if (plan['Node Type'] === 'Recursive Union') return [plan];
  return (plan.Plans ?? []).flatMap(recursiveWalks);
}

/**
 * The answer to `request` (a 200) and the plan of the one statement it sent that walks (`with
 * recursive`), run again under EXPLAIN ANALYZE on `db`.
 */
export async function explainedWalk(db: Database, request: () => Promise<ApiResponse>): Promise<{ answer: ApiResponse; plan: PlanNode }> {
  const dialect = new PgDialect();
  const { result: answer, statements } = await statementsDuring(db, request);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const walks = statements.filter((statement) => /\bwith recursive\b/i.test(renderStatement(statement, dialect).sql));
  expect(walks).toHaveLength(1);
  return { answer, plan: await explainPlan(db, walks[0]!, { analyze: true }) };
}
