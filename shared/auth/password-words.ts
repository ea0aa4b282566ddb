// Where the password-strength estimator finds its words. zxcvbn's lists (common passwords, English
// words, names, Wikipedia titles, diceware, word sequences) are some 236,000 ranked words: 1.6 MB
// as bundled code and 24 MB of heap once ranked, for a check that looks up a few hundred of them.
// Deployed, they are rows of the platform database, seeded by the deploy migration, and a check
// asks for just the words it looks up; the dev server and the tests read them from the packages.
// Both sources answer the same questions, so the estimator is one piece of code over either.
import type { Queryable } from '#shared/db/database.ts';
import { InternalError } from '#shared/errors.ts';
import { findPasswordWordRanks, storedPasswordWordLists } from './password-word-repository.ts';

/** A list's name (`passwords-common`) and its longest word, in the order the estimator is given them. */
export interface PasswordWordList {
  name: string;
  maxWordSize: number;
}

/** Ranks by list, then by word (1 is a list's most common word). */
export type PasswordWordRanks = Map<string, Map<string, number>>;

export interface PasswordWordSource {
  /** Every list, in order: the longest word of each bounds which parts of a password are looked up. */
  lists(): Promise<readonly PasswordWordList[]>;
  /** The rank of each of `words` in each list that holds it. */
  ranksOf(words: readonly string[]): Promise<PasswordWordRanks>;
}

/** The lists as the deploy migration stored them in the platform database. */
export function databasePasswordWords(db: Queryable): PasswordWordSource {
  return {
    lists() {
      let lists = storedLists.get(db);
      if (lists === undefined) {
        lists = storedPasswordWordLists(db).then((stored) => {
          if (stored.length === 0) {
            throw new InternalError('The password word lists are not in the database: the deploy migration seeds them.');
          }
          return stored;
        });
        // A failed read (or a database not yet seeded) is asked again by the next check, not remembered.
        lists.catch(() => storedLists.delete(db));
        storedLists.set(db, lists);
      }
      return lists;
    },
    ranksOf: (words) => findPasswordWordRanks(db, words),
  };
}
/** By database: the lists change only with a deployment, which starts new processes. */
const storedLists = new WeakMap<Queryable, Promise<readonly PasswordWordList[]>>();

/**
 * The source a check uses: the database in a Lambda bundle (which is built without the packages'
 * lists, infra/bundling.ts), the packages everywhere else.
 */
export async function passwordWordsFor(db: Queryable): Promise<PasswordWordSource> {
  // Written so that esbuild, given the constant, drops the branch and the packages' lists with it.
  if (process.env.TESSERA_BUNDLE_PASSWORD_WORDS !== 'database') {
    return (await import('./packaged-password-words.ts')).packagedPasswordWords();
  }
  return databasePasswordWords(db);
}
