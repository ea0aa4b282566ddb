// zxcvbn's word lists read from their packages (@zxcvbn-ts/language-common and -en): the source of
// the dev server and the tests, and what the deploy migration seeds the database with. Ranked the
// way zxcvbn ranks a list it is given (its buildRankedDictionary): a word's rank is its place in the
// list, from 1, and a word listed twice keeps its later place.
import { createHash } from 'node:crypto';
import { lazyImport } from '#shared/lazy-import.ts';
import type { SeededPasswordWordList } from './password-word-repository.ts';
import type { PasswordWordRanks, PasswordWordSource } from './password-words.ts';

export interface PackagedPasswordWordLists {
  lists: readonly SeededPasswordWordList[];
  /** A hash of every list: the deploy migration reseeds when it differs from the stored one. */
  version: string;
}

export const packagedPasswordWordLists = lazyImport(async (): Promise<PackagedPasswordWordLists> => {
  const [common, english] = await Promise.all([import('@zxcvbn-ts/language-common'), import('@zxcvbn-ts/language-en')]);
  const lists = Object.entries({ ...common.dictionary, ...english.dictionary }).map(([name, words]) => rankedList(name, words));
  const hash = createHash('sha256');
  for (const list of lists) hash.update(JSON.stringify([list.name, [...list.ranks]]));
  return { lists, version: hash.digest('hex') };
});

function rankedList(name: string, words: ReadonlyArray<string | number>): SeededPasswordWordList {
  const ranks = new Map<string, number>();
  let maxWordSize = 0;
  for (const [index, entry] of words.entries()) {
    const word = String(entry);
    ranks.set(word, index + 1);
    maxWordSize = Math.max(maxWordSize, word.length);
  }
  return { name, maxWordSize, ranks };
}

export async function packagedPasswordWords(): Promise<PasswordWordSource> {
  const { lists } = await packagedPasswordWordLists();
  return {
    lists: async () => lists.map(({ name, maxWordSize }) => ({ name, maxWordSize })),
    async ranksOf(words) {
      const found: PasswordWordRanks = new Map();
      for (const list of lists) {
        const inList = new Map<string, number>();
        for (const word of words) {
          const rank = list.ranks.get(word);
          if (rank !== undefined) inList.set(word, rank);
        }
        if (inList.size > 0) found.set(list.name, inList);
      }
      return found;
    },
  };
}
