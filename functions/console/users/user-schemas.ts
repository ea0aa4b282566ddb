// Request shapes of the users endpoints.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { pageQuery } from '#shared/http/pagination.ts';

import { looksLikeUuid, UUID_SHAPE } from '#shared/text/slugs.ts';

// Usernames appear in URLs next to UUIDs and `me`, so neither form may be taken as a username.
export const username = lazySchema(() =>
  z
    .string()
    .trim()
    .min(1, 'This field may not be blank.')
    .max(150, 'Ensure this field has no more than 150 characters.')
    .regex(/^[\w.@+-]+$/, 'Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.')
    .refine((value) => !looksLikeUuid(value) && value !== 'me', 'This username is reserved.'),
);

// The parts of the bodies below, built with the first body that needs them (lazySchema says why).
const email = lazySchema(() => z.string().trim().max(254).email('Enter a valid email address.'));
/** A password a user chooses: every body that sets one (new users, invitations, a changed password). */
export const password = lazySchema(() =>
  z
    .string()
    .min(8, 'This password is too short. It must contain at least 8 characters.')
    .max(128, 'Ensure this field has no more than 128 characters.'),
);
const personalName = lazySchema(() => z.string().trim().max(150, 'Ensure this field has no more than 150 characters.'));

export const createUserBody = lazySchema(() =>
  z.object({
    username: username(),
    email: email(),
    password: password(),
    first_name: personalName().optional(),
    last_name: personalName().optional(),
    is_active: z.boolean().optional(),
    is_staff: z.boolean().optional(),
    is_superuser: z.boolean().optional(),
  }),
);
export type CreateUserBody = z.infer<ReturnType<typeof createUserBody>>;

const changes = () => ({
  username: username(),
  email: email(),
  password: password(),
  first_name: personalName(),
  last_name: personalName(),
  is_active: z.boolean(),
  is_staff: z.boolean(),
  is_superuser: z.boolean(),
});

/** PUT replaces the account's fields: username and email must be sent. */
export const replaceUserBody = lazySchema(() =>
  z.object({
    ...changes(),
    first_name: personalName().optional(),
    last_name: personalName().optional(),
    password: password().optional(),
    is_active: z.boolean().optional(),
    is_staff: z.boolean().optional(),
    is_superuser: z.boolean().optional(),
  }),
);
export const patchUserBody = lazySchema(() => z.object(changes()).partial());
export type UserChanges = z.infer<ReturnType<typeof patchUserBody>>;

export const userParams = lazySchema(() => z.object({ username: z.string().min(1).max(150) }));

const tristate = lazySchema(() => z.enum(['true', '1', 'false', '0', 'all', '*']));
const flag = lazySchema(() => z.enum(['true', '1', 'false', '0']).transform((value) => value === 'true' || value === '1'));

export const USER_ORDERING_FIELDS = ['id', 'username', 'email', 'first_name', 'last_name', 'date_joined', 'last_login'] as const;
export type UserOrderingField = (typeof USER_ORDERING_FIELDS)[number];
export interface UserOrdering {
  field: UserOrderingField;
  descending: boolean;
}

const ordering = lazySchema(() => z.string().transform(userOrdering));

function userOrdering(value: string, ctx: z.RefinementCtx): UserOrdering[] {
  const terms = value
    .split(',')
    .map((term) => term.trim())
    .filter((term) => term !== '');
  const parsed: UserOrdering[] = [];
  for (const term of terms) {
    const field = term.replace(/^-/, '');
    if (!(USER_ORDERING_FIELDS as readonly string[]).includes(field)) {
      ctx.addIssue({
        code: 'custom',
        message: `Unknown ordering field "${field}". Choose from: ${USER_ORDERING_FIELDS.join(', ')}.`,
      });
      return z.NEVER;
    }
    parsed.push({ field: field as UserOrderingField, descending: term.startsWith('-') });
  }
  return parsed;
}

export const listUsersQuery = lazySchema(() =>
  z.object({
    search: z.string().trim().max(200).optional(),
    is_active: tristate()
      .default('true')
      .transform((value) => (value === 'all' || value === '*' ? undefined : value === 'true' || value === '1')),
    is_staff: flag().optional(),
    organization_slug: z.string().min(1).max(100).optional(),
    organization_uuid: z.string().regex(UUID_SHAPE, 'Must be a valid UUID.').optional(),
    ordering: ordering().optional(),
    ...pageQuery(),
  }),
);
export type ListUsersQuery = z.infer<ReturnType<typeof listUsersQuery>>;

export { looksLikeUuid };
