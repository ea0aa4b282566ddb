// Request shapes of the profile endpoints. Only the caller's names and email can change here;
// other members of a body sent back from GET (username, uuid, ...) are ignored.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { password } from '../users/user-schemas.ts';

export const profileChanges = lazySchema(() => {
  const personalName = z.string().trim().max(150, 'Ensure this field has no more than 150 characters.');
  return z.object({
    first_name: personalName.optional(),
    last_name: personalName.optional(),
    email: z.string().trim().max(254).email('Enter a valid email address.').optional(),
  });
});
export type ProfileChanges = z.infer<ReturnType<typeof profileChanges>>;

export const changePasswordBody = lazySchema(() =>
  z.object({
    old_password: z.string().min(1, 'This field may not be blank.').max(128),
    new_password: password(),
  }),
);
export type ChangePasswordBody = z.infer<ReturnType<typeof changePasswordBody>>;
