// The password-strength estimator reads its word lists from a source (the packages, or the platform
// database where the deploy migration seeds them) and must answer exactly as zxcvbn does holding
// the whole lists in memory: zxcvbn itself is the oracle here, over passwords of every shape it
// scores (common passwords, words, names, l33t, reversals, repeats, dates, keyboard walks, the
// owner's details) and hostile ones (prototype names, 128 characters of l33t substitutes).
import { sql } from 'drizzle-orm';
import { ZxcvbnFactory, type ZxcvbnResult } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as english from '@zxcvbn-ts/language-en';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagedPasswordWords } from '#shared/auth/packaged-password-words.ts';
import { estimateStrength } from '#shared/auth/password-strength.ts';
import { databasePasswordWords, type PasswordWordSource } from '#shared/auth/password-words.ts';
import { seedPasswordWords } from '#shared/auth/seed-password-words.ts';
import { InternalError } from '#shared/errors.ts';
import { createTestDatabase, type TestDatabase } from '#test/support/test-database.ts';

const OWNER_INPUTS = ['marguerite', 'marguerite@example.com', 'marguerite', 'Marguerite', 'Duval'];

/** Words that reach a lookup as the names of Object.prototype's members. */
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

/** A small deterministic generator, so the corpus is the same on every run. */
function* pseudoRandom(seed: number): Generator<number> {
  let state = seed;
  for (;;) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    yield state / 2 ** 31;
  }
}

function corpus(): string[] {
  const lists = { ...common.dictionary, ...english.dictionary } as Record<string, ReadonlyArray<string | number>>;
  const sample = (name: string, ranks: number[]) => ranks.map((rank) => String(lists[name]![rank - 1]));
  const words = [
    ...sample('passwords-common', [1, 2, 3, 10, 100, 1_000, 10_000, 40_000]),
    ...sample('commonWords-en', [5, 500, 5_000, 50_000]),
    ...sample('lastnames-en', [7, 700, 7_000, 70_000]),
    ...sample('firstnames-en', [3, 300, 3_000]),
    ...sample('wikipedia-en', [9, 900, 9_000, 29_000]),
    ...sample('diceware-common', [11, 1_100, 7_000]),
  ];
  const l33t = (word: string) => word.replace(/a/g, '@').replace(/e/g, '3').replace(/o/g, '0').replace(/s/g, '$').replace(/i/g, '1');
  const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
  const shaped = words.flatMap((word) => [
    word,
    capitalized(word),
    word.toUpperCase(),
    l33t(word),
    [...word].reverse().join(''),
    `${word}1987`,
    `${capitalized(word)}!2024`,
    `${word}${word}`,
  ]);
  const random = pseudoRandom(20_261_128);
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!@#$%^&*()-_=+[]{};:,.<>/?|~ ';
  const randomText = (length: number) =>
    Array.from({ length }, () => alphabet[Math.floor(random.next().value! * alphabet.length)]).join('');
  const phrases = Array.from({ length: 12 }, (_, index) =>
    Array.from({ length: 2 + (index % 3) }, () => words[Math.floor(random.next().value! * words.length)]).join(index % 2 === 0 ? ' ' : '-'),
  );
  return [
    ...shaped,
    ...phrases,
    ...Array.from({ length: 12 }, (_, index) => randomText(6 + index * 3)),
    'correct horse battery staple',
    'Tr0ub4dor&3',
    'qwertyuiop',
    'zxcvbnm,./',
    '1qaz2wsx3edc',
    '11/09/2001',
    '19870314',
    'abcdefghijk',
    '9876543210',
    'aaaaaaaaaa',
    'abcabcabcabc',
    'onetwothreefourfive',
    'mondaytuesday',
    'marguerite2024',
    'etireugram',
    'Duval1990',
    'velvet-compass-river',
    '        ',
    'pässwörd-ünïcödé',
    '密码密码密码',
    '4@8(<{[|!1$5+7%2'.repeat(8),
  ];
}

/** What an answer says, without the time it took to say it. */
function verdict(result: ZxcvbnResult) {
  return {
    score: result.score,
    guesses: result.guesses,
    feedback: result.feedback,
    sequence: result.sequence.map((match) => ({ ...match, guesses: match.guesses, guessesLog10: match.guessesLog10 })),
  };
}

describe('password word lists', () => {
  let database: TestDatabase;
  let whole: ZxcvbnFactory;
  let packaged: PasswordWordSource;
  let stored: PasswordWordSource;

  beforeAll(async () => {
    database = await createTestDatabase();
    whole = new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...english.dictionary },
      graphs: common.adjacencyGraphs,
      translations: english.translations,
    });
    packaged = await packagedPasswordWords();
    stored = databasePasswordWords(database.db);
  }, 120_000);
  afterAll(async () => {
    await database.dispose();
  });

  it('refuses to estimate from a database the deploy migration has not seeded, and asks again later', async () => {
    // Act and assess
    await expect(estimateStrength(stored, 'correct horse', [])).rejects.toThrow(InternalError);
    await expect(estimateStrength(stored, 'correct horse', [])).rejects.toThrow(/deploy migration seeds them/);
  });

  it('seeds every list once, and leaves current lists alone', async () => {
    // Act
    const first = await seedPasswordWords(database.db);
    const again = await seedPasswordWords(database.db);
    // Assess
    expect(first.seeded).toBe(true);
    expect(again).toEqual({ seeded: false, words: first.words });
    const [counted] = await database.db.rows<{ words: string; lists: string }>(
      sql`select (select count(*) from platform.password_words) as words, (select count(*) from platform.password_word_lists) as lists`,
    );
    expect(Number(counted!.words)).toBe(first.words);
    expect(Number(counted!.lists)).toBe(Object.keys({ ...common.dictionary, ...english.dictionary }).length);
    expect(first.words).toBeGreaterThan(200_000);
  }, 120_000);

  it('reseeds lists whose version is not the packages’ own', async () => {
    // Prepare: lists left by an older release, one word short.
    await database.db.run(sql`update platform.password_word_lists set version = 'older'`);
    await database.db.run(sql`delete from platform.password_words where list = 'passwords-common' and rank = 1`);
    // Act
    const outcome = await seedPasswordWords(database.db);
    // Assess
    expect(outcome.seeded).toBe(true);
    const [top] = await database.db.rows<{ word: string }>(
      sql`select word from platform.password_words where list = 'passwords-common' and rank = 1`,
    );
    expect(top?.word).toBe(String(common.dictionary['passwords-common']![0]));
  }, 120_000);

  it('answers as zxcvbn with the whole lists, from the packages and from the database', async () => {
    for (const password of corpus()) {
      // Act
      const expected = verdict(whole.check(password, OWNER_INPUTS));
      const fromPackages = verdict(await estimateStrength(packaged, password, OWNER_INPUTS));
      const fromDatabase = verdict(await estimateStrength(stored, password, OWNER_INPUTS));
      // Assess
      expect({ password, ...fromPackages }).toEqual({ password, ...expected });
      expect({ password, ...fromDatabase }).toEqual({ password, ...expected });
    }
  }, 300_000);

  it('scores the names of Object.prototype as plain text, the same from both sources', async () => {
    for (const name of PROTOTYPE_NAMES) {
      for (const password of [name, `${name}1`, `${name.toUpperCase()}2024!`]) {
        // Act
        const fromPackages = verdict(await estimateStrength(packaged, password, []));
        const fromDatabase = verdict(await estimateStrength(stored, password, []));
        // Assess: a real estimate, the same from both sources.
        expect(Number.isFinite(fromPackages.guesses)).toBe(true);
        expect(fromPackages.score).toBeGreaterThanOrEqual(0);
        expect(fromDatabase).toEqual(fromPackages);
      }
    }
  }, 120_000);

  it('estimates checks in flight at once each on its own lists', async () => {
    // Act
    const passwords = ['password', 'velvet-compass-river', 'marguerite2024', 'Tr0ub4dor&3', 'qwertyuiop', 'correct horse battery staple'];
    const together = await Promise.all(passwords.map((password) => estimateStrength(stored, password, OWNER_INPUTS)));
    // Assess
    expect(together.map(verdict)).toEqual(passwords.map((password) => verdict(whole.check(password, OWNER_INPUTS))));
  }, 120_000);
});
