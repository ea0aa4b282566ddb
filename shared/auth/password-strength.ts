// What a new password must be beyond its length: not the account's username or email (whatever
// the case), and at least 3 on the 0–4 scale of zxcvbn, a strength estimator that knows common
// passwords, words, names, keyboard walks, dates and l33t spellings.
//
// zxcvbn looks words up in ranked lists it holds in memory. Ours come from a source instead
// (password-words.ts: the platform database when deployed), so a check runs zxcvbn twice: once
// with lists that note every word asked for and hold none, then, with the ranks of those words
// fetched in one go, for the answer. The first run's lookups do not depend on what is found (zxcvbn
// tries every part of the password, its reversal and its l33t readings, with or without hits), so
// the answer is the one zxcvbn gives with whole lists (test/integration/auth/password-words.test.ts).
import type { ZxcvbnFactory, ZxcvbnResult } from '@zxcvbn-ts/core';
import type { Queryable } from '#shared/db/database.ts';
import { lazyImport } from '#shared/lazy-import.ts';
import { passwordWordsFor, type PasswordWordList, type PasswordWordRanks, type PasswordWordSource } from './password-words.ts';

/** zxcvbn's 3: "safely unguessable: moderate protection from offline slow-hash scenario". */
export const MIN_PASSWORD_SCORE = 3;

/** The account a password is for; its own details make poor passwords. */
export interface PasswordOwner {
  username?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
}

type RankedWords = Record<string, number>;

/**
 * What this module reaches past zxcvbn-ts's typings, which mark them private: its options' ranked
 * lists (read afresh by every match) and its matching step alone. Plain properties in 4.2.0, the
 * version package.json pins; the comparison test with whole lists fails if an upgrade moves them.
 */
interface EstimatorInternals {
  options: {
    rankedDictionaries: Record<string, RankedWords>;
    rankedDictionariesMaxWordSize: Record<string, number>;
    maxLength: number;
  };
  main(password: string, userInputs: string[]): unknown;
}

/** zxcvbn, loaded with the first check; the lists are set per check. */
const loadEstimator = lazyImport(async (): Promise<ZxcvbnFactory> => (await import('./zxcvbn-estimator.ts')).newEstimator());

/**
 * Gives the estimator `lists`, each holding what `wordsOf` makes for it. Synchronous with the run
 * that follows it, so checks in flight at once never see each other's lists.
 */
function useLists(internals: EstimatorInternals, lists: readonly PasswordWordList[], wordsOf: (list: string) => RankedWords): void {
  const ranked: Record<string, RankedWords> = {};
  const sizes: Record<string, number> = {};
  for (const list of lists) {
    ranked[list.name] = wordsOf(list.name);
    sizes[list.name] = list.maxWordSize; // the whole list's longest word: it decides what is looked up
  }
  internals.options.rankedDictionaries = ranked;
  internals.options.rankedDictionariesMaxWordSize = sizes;
}

/** The words zxcvbn looks up in the lists to estimate `password`. */
function wordsLookedUp(
  internals: EstimatorInternals,
  lists: readonly PasswordWordList[],
  password: string,
  userInputs: string[],
): string[] {
  const asked = new Set<string>();
  const noting = new Proxy<RankedWords>(Object.create(null) as RankedWords, {
    get(_words, key) {
      if (typeof key === 'string') asked.add(key);
      return undefined;
    },
  });
  useLists(internals, lists, () => noting);
  internals.main(password.substring(0, internals.options.maxLength), userInputs);
  return [...asked];
}

/** `ranks` of one list as zxcvbn holds a list: a plain lookup, with no prototype to answer `constructor`. */
function rankedWords(ranks: PasswordWordRanks, list: string): RankedWords {
  const words = Object.create(null) as RankedWords;
  for (const [word, rank] of ranks.get(list) ?? []) words[word] = rank;
  return words;
}

/** zxcvbn's estimate of `password` with the lists of `source`. */
export async function estimateStrength(source: PasswordWordSource, password: string, userInputs: string[]): Promise<ZxcvbnResult> {
  const [factory, lists] = await Promise.all([loadEstimator(), source.lists()]);
  const internals = factory as unknown as EstimatorInternals;
  const ranks = await source.ranksOf(wordsLookedUp(internals, lists, password, userInputs));
  useLists(internals, lists, (list) => rankedWords(ranks, list));
  return factory.check(password, userInputs);
}

/** The owner's details as zxcvbn user inputs: variations of them (`alice1`, `ecila`) score low too. */
function ownerInputs(owner: PasswordOwner): string[] {
  const email = owner.email?.trim().toLowerCase();
  const inputs = [owner.username, email, email?.split('@')[0], owner.firstName, owner.lastName];
  return inputs.filter((input): input is string => input !== undefined && input.trim().length > 0);
}

/** Why `password` is refused for `owner`, as field messages; empty when it is acceptable. */
export async function passwordWeaknesses(db: Queryable, password: string, owner: PasswordOwner): Promise<string[]> {
  const folded = password.trim().toLowerCase();
  if (owner.username !== undefined && folded === owner.username.trim().toLowerCase()) {
    return ['The password is the same as the username.'];
  }
  if (owner.email !== undefined && folded === owner.email.trim().toLowerCase()) {
    return ['The password is the same as the email address.'];
  }
  const result = await estimateStrength(await passwordWordsFor(db), password, ownerInputs(owner));
  if (result.score >= MIN_PASSWORD_SCORE) return [];
  const { warning, suggestions } = result.feedback;
  return [
    `This password is too easy to guess (strength ${result.score} of 4, at least ${MIN_PASSWORD_SCORE} needed).`,
    ...(warning === null || warning === '' ? [] : [warning]),
    ...suggestions,
  ];
}
