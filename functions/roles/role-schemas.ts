// Input of the role endpoints (zod): names and descriptions within the spec's limits, slugs as
// text, 1-100 roles and usernames in bulk requests, datetimes with an offset, fixed ordering lists.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { pageQuery } from '#shared/http/pagination.ts';
import { APP_ROLE_PERMISSIONS } from '#shared/tenancy/role-grants.ts';

const slug = lazySchema(() => z.string().min(1).max(255));
const username = lazySchema(() => z.string().min(1).max(150));
const description = lazySchema(() => z.string().max(1000, 'Ensure this field has no more than 1000 characters.'));
const roleName = lazySchema(() =>
  z.string().trim().min(1, 'This field may not be blank.').max(100, 'Ensure this field has no more than 100 characters.'),
);
const datetime = lazySchema(() => z.iso.datetime({ offset: true }).transform((text) => new Date(text)));
const booleanText = lazySchema(() => z.enum(['true', 'false']).transform((text) => text === 'true'));
/** What holding the role lets a user do in its app (beyond the spec; shared/tenancy/role-grants.ts). */
const rolePermissions = lazySchema(() =>
  z
    .array(z.enum(APP_ROLE_PERMISSIONS, { error: `Choose from: ${APP_ROLE_PERMISSIONS.join(', ')}.` }))
    .max(APP_ROLE_PERMISSIONS.length * 4)
    .transform((names) => [...new Set(names)].sort()),
);

/** `name` or `-name` among `fields`, into a column and a direction. */
function ordering<const F extends string>(fields: readonly F[], fallback: `${'' | '-'}${NoInfer<F>}`) {
  return z
    .string()
    .default(fallback)
    .transform((text, context) => {
      const descending = text.startsWith('-');
      const column = (descending ? text.slice(1) : text) as F;
      if (!fields.includes(column)) {
        context.addIssue({ code: 'custom', message: `Unknown ordering "${text}". Choose from: ${fields.join(', ')}.` });
        return z.NEVER;
      }
      return { column, descending };
    });
}

export const appParams = lazySchema(() => z.object({ app_slug: slug() }));
export const appRoleParams = lazySchema(() => z.object({ app_slug: slug(), role_slug: slug() }));
export const roleParams = lazySchema(() => z.object({ slug: slug() }));
export const roleUsersParams = lazySchema(() => z.object({ role_slug: slug() }));
export const userRolesParams = lazySchema(() => z.object({ username: username() }));

export const listAppRolesQuery = lazySchema(() =>
  z.object({
    search: z.string().min(1).optional(),
    ordering: ordering(['name', 'created_at', 'updated_at'] as const, 'name'),
    ...pageQuery(20, 100),
  }),
);

export const listSiteRolesQuery = lazySchema(() => listAppRolesQuery());

export const createAppRoleBody = lazySchema(() =>
  z.strictObject({
    name: roleName(),
    description: description().optional(),
    parent_role_slug: slug().or(z.literal('')).nullable().optional(),
    permissions: rolePermissions().optional(),
  }),
);

/** `name` is immutable: sending it is a 400 naming it (strict object). */
export const changeAppRoleBody = lazySchema(() =>
  z.strictObject(
    {
      description: description().optional(),
      parent_role_slug: slug().or(z.literal('')).nullable().optional(),
      permissions: rolePermissions().optional(),
    },
    {
      error: (issue) => (issue.code === 'unrecognized_keys' && issue.keys.includes('name') ? 'A role name cannot be changed.' : undefined),
    },
  ),
);

export const deleteAppRoleQuery = lazySchema(() => z.object({ remove_child_roles: booleanText().default(false) }));

export const createSiteRoleBody = lazySchema(() =>
  z.strictObject({
    name: roleName(),
    description: description().optional(),
    role_slugs: z.array(slug()).max(1000).optional(),
  }),
);

export const changeSiteRoleBody = lazySchema(() =>
  z.strictObject({
    name: roleName().optional(),
    description: description().optional(),
    role_slugs: z.array(slug()).max(1000).optional(),
  }),
);

const roleList = lazySchema(() => z.array(slug()).min(1, 'Give at least one role.').max(100, 'At most 100 roles per request.'));
const usernameList = lazySchema(() =>
  z.array(username()).min(1, 'Give at least one username.').max(100, 'At most 100 usernames per request.'),
);

export const assignRolesBody = lazySchema(() =>
  z.strictObject({ roles: roleList(), usernames: usernameList(), expires_at: datetime().nullable().optional() }),
);
export const revokeRolesBody = lazySchema(() => z.strictObject({ roles: roleList(), usernames: usernameList() }));

export const roleUsersQuery = lazySchema(() =>
  z.object({
    search: z.string().min(1).optional(),
    username: username().optional(),
    include_expired: booleanText().default(false),
    ordering: ordering(['username', 'email', 'first_name', 'last_name', 'created_at'] as const, '-created_at'),
    ...pageQuery(20, 100),
  }),
);

export const roleUsersBody = lazySchema(() => z.strictObject({ usernames: usernameList() }));
export const replaceRoleUsersBody = lazySchema(() => z.strictObject({ usernames: z.array(username()).max(1000) }));
export const expireRoleUsersBody = lazySchema(() => z.strictObject({ usernames: usernameList(), expires_at: datetime().nullable() }));

export const userRolesQuery = lazySchema(() =>
  z.object({
    app: slug().optional(),
    search: z.string().min(1).optional(),
    membership_type: z.enum(['app_role', 'site_role']).optional(),
    include_expired: booleanText().default(false),
    ordering: ordering(['created_at', 'expires_at', 'role_name'] as const, '-created_at'),
    ...pageQuery(20, 100),
  }),
);
