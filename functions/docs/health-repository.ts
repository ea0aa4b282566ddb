// The readiness check's one statement: proves a connection to the database answers.
import type { Queryable } from '#shared/db/database.ts';
import { sql } from '#shared/db/sql.ts';

export async function pingDatabase(db: Queryable): Promise<void> {
  await db.rows(sql`select 1 as ready`);
}
