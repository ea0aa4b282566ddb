// The statements the platform sends while some work runs, for tests that EXPLAIN or count them. The
// database's `rows` and `rowsTogether` are watched, not replaced: every statement still runs on the
// real database. A statement seen twice (PGlite's rowsTogether runs its statements through rows) is
// kept once.
import type { SQL } from 'drizzle-orm';
import { vi } from 'vitest';
import type { Database } from '#shared/db/database.ts';

export async function statementsDuring<T>(
  db: Database,
  work: () => Promise<T>,
): Promise<{ result: T; statements: SQL[]; together: SQL[][] }> {
  const statements: SQL[] = [];
  /** The batches sent together on one connection (`rowsTogether`), each as sent. */
  const together: SQL[][] = [];
  const keep = (statement: SQL) => {
    if (!statements.includes(statement)) statements.push(statement);
  };
  const realRows = db.rows.bind(db);
  const realTogether = db.rowsTogether.bind(db);
  const spies = [
    vi.spyOn(db, 'rows').mockImplementation(((statement: SQL) => {
      keep(statement);
      return realRows(statement);
    }) as typeof db.rows),
    vi.spyOn(db, 'rowsTogether').mockImplementation((sent) => {
      together.push([...sent]);
      sent.forEach(keep);
      return realTogether(sent);
    }),
  ];
  try {
    return { result: await work(), statements, together };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}
