// SQL of the password word lists (platform.password_word_lists, platform.password_words).
import type { Queryable } from '#shared/db/database.ts';
import { sql } from '#shared/db/sql.ts';
import type { PasswordWordList, PasswordWordRanks } from './password-words.ts';

/** A list as seeded: each of its words with its rank, as the estimator ranks them. */
export interface SeededPasswordWordList extends PasswordWordList {
  ranks: ReadonlyMap<string, number>;
}

/** Rows a seeding statement inserts at once: some 15 statements for all the lists. */
const SEED_BATCH_ROWS = 20_000;

export async function storedPasswordWordLists(db: Queryable): Promise<PasswordWordList[]> {
  const rows = await db.rows<{ name: string; max_word_size: number }>(
    sql`select name, max_word_size from platform.password_word_lists order by position`,
  );
  return rows.map((row) => ({ name: row.name, maxWordSize: Number(row.max_word_size) }));
}

/** The version every stored list carries, or undefined when none is stored or they disagree. */
export async function storedPasswordWordsVersion(db: Queryable): Promise<string | undefined> {
  const rows = await db.rows<{ version: string }>(sql`select distinct version from platform.password_word_lists`);
  return rows.length === 1 ? rows[0]!.version : undefined;
}

export async function findPasswordWordRanks(db: Queryable, words: readonly string[]): Promise<PasswordWordRanks> {
  const ranks: PasswordWordRanks = new Map();
  if (words.length === 0) return ranks;
  const rows = await db.rows<{ list: string; word: string; rank: number }>(
    sql`select list, word, rank from platform.password_words where word = any(${sql.param([...words])}::text[])`,
  );
  for (const row of rows) {
    const list = ranks.get(row.list) ?? new Map<string, number>();
    list.set(row.word, Number(row.rank));
    ranks.set(row.list, list);
  }
  return ranks;
}

/** Replaces every list and word with `lists`, tagged `version`, in one transaction. */
export async function replacePasswordWords(db: Queryable, lists: readonly SeededPasswordWordList[], version: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.run(sql`delete from platform.password_words`);
    await tx.run(sql`delete from platform.password_word_lists`);
    for (const [position, list] of lists.entries()) {
      await tx.run(sql`insert into platform.password_word_lists (name, position, max_word_size, words, version)
        values (${list.name}, ${position}, ${list.maxWordSize}, ${list.ranks.size}, ${version})`);
      const entries = [...list.ranks];
      for (let start = 0; start < entries.length; start += SEED_BATCH_ROWS) {
        const batch = entries.slice(start, start + SEED_BATCH_ROWS);
        await tx.run(sql`insert into platform.password_words (word, list, rank)
          select word, ${list.name}, rank
          from unnest(${sql.param(batch.map(([word]) => word))}::text[], ${sql.param(batch.map(([, rank]) => rank))}::int[]) as w(word, rank)`);
      }
    }
    // Statistics now, not whenever autovacuum comes by: without them the planner guesses hundreds of
    // rows per word and reads the whole table (20 ms) instead of the primary key (under 1 ms).
    await tx.run(sql`analyze platform.password_words`);
  });
}
