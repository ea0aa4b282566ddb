// The deploy migration's step that puts zxcvbn's word lists in the platform database, where a
// deployed password check reads them (password-words.ts). Safe to run again: lists already stored
// at the packages' version are left alone.
import type { Database } from '#shared/db/database.ts';
import { packagedPasswordWordLists } from './packaged-password-words.ts';
import { replacePasswordWords, storedPasswordWordsVersion } from './password-word-repository.ts';

export interface PasswordWordsSeeding {
  /** False when the stored lists were already current. */
  seeded: boolean;
  words: number;
}

export async function seedPasswordWords(db: Database): Promise<PasswordWordsSeeding> {
  const { lists, version } = await packagedPasswordWordLists();
  const words = lists.reduce((sum, list) => sum + list.ranks.size, 0);
  if ((await storedPasswordWordsVersion(db)) === version) return { seeded: false, words };
  await replacePasswordWords(db, lists, version);
  return { seeded: true, words };
}
