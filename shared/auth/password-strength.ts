// What a new password must be beyond its length: not the account's username or email (whatever
// the case), and at least 3 on the 0–4 scale of zxcvbn, a strength estimator that knows common
// passwords, words, names, keyboard walks, dates and l33t spellings. Its dictionaries are a few
// megabytes: they are loaded and ranked on first use, never when a bundle is imported, so a cold
// start that sets no password does not pay for them.
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/** zxcvbn's 3: "safely unguessable: moderate protection from offline slow-hash scenario". */
export const MIN_PASSWORD_SCORE = 3;

/** The account a password is for; its own details make poor passwords. */
export interface PasswordOwner {
  username?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
}

let estimator: Promise<ZxcvbnFactory> | undefined;

function loadEstimator(): Promise<ZxcvbnFactory> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common, english] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...english.dictionary },
      graphs: common.adjacencyGraphs,
      translations: english.translations,
    });
  })().catch((error: unknown) => {
    estimator = undefined; // a failed load is retried by the next caller, not cached
    throw error;
  });
  return estimator;
}

/** The owner's details as zxcvbn user inputs: variations of them (`alice1`, `ecila`) score low too. */
function ownerInputs(owner: PasswordOwner): string[] {
  const email = owner.email?.trim().toLowerCase();
  const inputs = [owner.username, email, email?.split('@')[0], owner.firstName, owner.lastName];
  return inputs.filter((input): input is string => input !== undefined && input.trim().length > 0);
}

/** Why `password` is refused for `owner`, as field messages; empty when it is acceptable. */
export async function passwordWeaknesses(password: string, owner: PasswordOwner): Promise<string[]> {
  const folded = password.trim().toLowerCase();
  if (owner.username !== undefined && folded === owner.username.trim().toLowerCase()) {
    return ['The password is the same as the username.'];
  }
  if (owner.email !== undefined && folded === owner.email.trim().toLowerCase()) {
    return ['The password is the same as the email address.'];
  }
  const result = (await loadEstimator()).check(password, ownerInputs(owner));
  if (result.score >= MIN_PASSWORD_SCORE) return [];
  const { warning, suggestions } = result.feedback;
  return [
    `This password is too easy to guess (strength ${result.score} of 4, at least ${MIN_PASSWORD_SCORE} needed).`,
    ...(warning === null || warning === '' ? [] : [warning]),
    ...suggestions,
  ];
}
