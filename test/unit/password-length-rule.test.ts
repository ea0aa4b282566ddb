import { describe, expect, it } from 'vitest';
import { acceptInvitationBody } from '#functions/console/organizations/invitation-schemas.ts';
import { changePasswordBody } from '#functions/console/profile/profile-schemas.ts';
import { createUserBody } from '#functions/console/users/user-schemas.ts';

// Every body that sets a password holds it to one rule, with one wording: a new account, an
// invitation accepted by someone without one, and a changed password.
const bodies = [
  {
    name: 'create user',
    field: 'password',
    parse: (value: string) => createUserBody().safeParse({ username: 'ann', email: 'ann@example.com', password: value }),
  },
  {
    name: 'accept invitation',
    field: 'password',
    parse: (value: string) => acceptInvitationBody().safeParse({ username: 'ann', password: value }),
  },
  {
    name: 'change password',
    field: 'new_password',
    parse: (value: string) => changePasswordBody().safeParse({ old_password: 'old', new_password: value }),
  },
];

function messagesFor(result: ReturnType<(typeof bodies)[number]['parse']>, field: string): string[] {
  return result.success ? [] : result.error.issues.filter((issue) => issue.path[0] === field).map((issue) => issue.message);
}

describe('the password length rule', () => {
  for (const body of bodies) {
    it(`${body.name}: 8 to 128 characters, in the same words`, () => {
      expect(messagesFor(body.parse('a'.repeat(7)), body.field)).toEqual([
        'This password is too short. It must contain at least 8 characters.',
      ]);
      expect(messagesFor(body.parse('a'.repeat(129)), body.field)).toEqual(['Ensure this field has no more than 128 characters.']);
      expect(body.parse('a'.repeat(8)).success).toBe(true);
      expect(body.parse('a'.repeat(128)).success).toBe(true);
    });
  }
});
