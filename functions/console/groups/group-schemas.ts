// Request shapes of the groups and permissions endpoints.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { pageQuery } from '#shared/http/pagination.ts';

const groupName = lazySchema(() =>
  z.string().trim().min(1, 'This field may not be blank.').max(150, 'Ensure this field has no more than 150 characters.'),
);

const names = (what: string) =>
  z
    .array(z.string().trim().min(1, `A ${what} may not be blank.`).max(150))
    .max(1000, 'Ensure this list has no more than 1000 items.')
    .transform((items) => [...new Set(items)]);

/** POST and PUT both set the whole group: omitted lists are empty. */
export const groupBody = lazySchema(() =>
  z.object({
    name: groupName(),
    permissions: names('permission codename').default([]),
    users: names('username').default([]),
  }),
);
export type GroupBody = z.infer<ReturnType<typeof groupBody>>;

/** Ids are checked in the service: a malformed id finds nothing (404), like an unknown one. */
export const idParams = lazySchema(() => z.object({ id: z.string().min(1).max(20) }));

export const listGroupsQuery = lazySchema(() =>
  z.object({
    search: z.string().trim().max(200).optional(),
    ...pageQuery(),
  }),
);
export type ListGroupsQuery = z.infer<ReturnType<typeof listGroupsQuery>>;

export const PERMISSION_MODELS = ['organization', 'site', 'user'] as const;

export const listPermissionsQuery = lazySchema(() =>
  z.object({
    model: z.enum(PERMISSION_MODELS).optional(),
    search: z.string().trim().max(200).optional(),
    ...pageQuery(),
  }),
);
export type ListPermissionsQuery = z.infer<ReturnType<typeof listPermissionsQuery>>;

/** A positive 32-bit integer id, or undefined for anything else. */
export function parseId(text: string): number | undefined {
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && id <= 2_147_483_647 ? id : undefined;
}
