// The `platform` schema: tables shared by every tenant. Changes here become committed drizzle-kit
// migrations (`npm run db:generate`), applied on start and at deploy.
import { sql } from '#shared/db/sql.ts';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';

export const platform = /* @__PURE__ */ pgSchema('platform');

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

export const users = /* @__PURE__ */ platform.table(
  'users',
  () => ({
    id: serial('id').primaryKey(),
    uuid: uuid('uuid').notNull().defaultRandom().unique(),
    username: varchar('username', { length: 150 }).notNull().unique(),
    email: varchar('email', { length: 254 }).notNull(),
    passwordHash: text('password_hash').notNull(),
    firstName: varchar('first_name', { length: 150 }).notNull().default(''),
    lastName: varchar('last_name', { length: 150 }).notNull().default(''),
    isActive: boolean('is_active').notNull().default(true),
    isStaff: boolean('is_staff').notNull().default(false),
    isSuperuser: boolean('is_superuser').notNull().default(false),
    isDeleted: boolean('is_deleted').notNull().default(false),
    dateJoined: timestamp('date_joined', { withTimezone: true }).notNull().defaultNow(),
    lastLogin: timestamp('last_login', { withTimezone: true }),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    // Tokens issued before this instant are refused: set on password change and on soft delete.
    tokensValidAfter: timestamp('tokens_valid_after', { withTimezone: true }),
    // Whether a platform sign-in provider vouched for `email` (functions/social/login): set by such a
    // sign-in, cleared whenever the email changes any other way. Not part of any API answer.
    emailVerified: boolean('email_verified').notNull().default(false),
  }),
  (table) => [
    uniqueIndex('users_email_lower_key').on(sql`lower(${table.email})`),
    // Usernames are unique whatever their case, soft-deleted users included (they keep theirs for a restore).
    uniqueIndex('users_username_lower_key').on(sql`lower(${table.username})`),
    index('users_date_joined_idx').on(table.dateJoined),
  ],
);

export const permissions = /* @__PURE__ */ platform.table('permissions', () => ({
  id: serial('id').primaryKey(),
  codename: varchar('codename', { length: 100 }).notNull().unique(),
  name: varchar('name', { length: 255 }).notNull(),
  model: varchar('model', { length: 50 }).notNull(),
}));

export const groups = /* @__PURE__ */ platform.table('groups', () => ({
  id: serial('id').primaryKey(),
  name: varchar('name', { length: 150 }).notNull().unique(),
}));

export const groupPermissions = /* @__PURE__ */ platform.table(
  'group_permissions',
  () => ({
    groupId: integer('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
    permissionId: integer('permission_id')
      .notNull()
      .references(() => permissions.id, { onDelete: 'cascade' }),
  }),
  (table) => [primaryKey({ columns: [table.groupId, table.permissionId] })],
);

export const userGroups = /* @__PURE__ */ platform.table(
  'user_groups',
  () => ({
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    groupId: integer('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
  }),
  (table) => [primaryKey({ columns: [table.userId, table.groupId] }), index('user_groups_group_idx').on(table.groupId)],
);

export const userPermissions = /* @__PURE__ */ platform.table(
  'user_permissions',
  () => ({
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    permissionId: integer('permission_id')
      .notNull()
      .references(() => permissions.id, { onDelete: 'cascade' }),
  }),
  (table) => [primaryKey({ columns: [table.userId, table.permissionId] })],
);

/**
 * Revoked token ids (refresh tokens after rotation or logout, access tokens at logout), and revoked
 * token families (`token_type` `family`, `jti` the family id): every token descended from one
 * sign-in, cut off at once when a rotated refresh token is used again.
 */
export const revokedTokens = /* @__PURE__ */ platform.table(
  'revoked_tokens',
  () => ({
    jti: uuid('jti').primaryKey(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    tokenType: varchar('token_type', { length: 10 }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }).notNull().defaultNow(),
  }),
  (table) => [index('revoked_tokens_expires_at_idx').on(table.expiresAt)],
);

export const organizations = /* @__PURE__ */ platform.table('organizations', () => ({
  id: serial('id').primaryKey(),
  uuid: uuid('uuid').notNull().defaultRandom().unique(),
  name: varchar('name', { length: 255 }).notNull(),
  slug: varchar('slug', { length: 100 }).notNull().unique(),
  isActive: boolean('is_active').notNull().default(true),
  created: timestamp('created', { withTimezone: true }).notNull().defaultNow(),
  modified: timestamp('modified', { withTimezone: true }).notNull().defaultNow(),
}));

/**
 * Origins of a membership: `creator` founded the organization, `invitation` accepted one,
 * `authorised` was added directly by a superuser, a staff user or an admin of an organization the
 * user already belonged to; `unknown` predates the record.
 */
export const MEMBERSHIP_ORIGINS = ['creator', 'invitation', 'authorised', 'unknown'] as const;
export type MembershipOrigin = (typeof MEMBERSHIP_ORIGINS)[number];

export const organizationMembers = /* @__PURE__ */ platform.table(
  'organization_members',
  () => ({
    id: serial('id').primaryKey(),
    uuid: uuid('uuid').notNull().defaultRandom().unique(),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    isAdmin: boolean('is_admin').notNull().default(false),
    isOwner: boolean('is_owner').notNull().default(false),
    /** Organization-level permission codenames granted to this member (for example `invite_members`). */
    permissions: text('permissions').array().notNull().default(sql`'{}'::text[]`),
    /**
     * How the membership was made (see MEMBERSHIP_ORIGINS): the organization-delete cascade
     * soft-deletes only users who joined with consent or were added by someone with authority
     * over them. Rows older than this column are `unknown` and never cascade.
     */
    joinedVia: varchar('joined_via', { length: 20 }).notNull().default('unknown'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  }),
  (table) => [
    uniqueIndex('organization_members_org_user_key').on(table.organizationId, table.userId),
    index('organization_members_user_idx').on(table.userId),
  ],
);

/**
 * Groups handed out through a membership (add member, member PUT, an accepted invitation). Their
 * permissions count inside that organization only; platform-wide grants are user_groups, which
 * only superusers and the groups API manage.
 */
export const organizationMemberGroups = /* @__PURE__ */ platform.table(
  'organization_member_groups',
  () => ({
    memberId: integer('member_id')
      .notNull()
      .references(() => organizationMembers.id, { onDelete: 'cascade' }),
    groupId: integer('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
  }),
  (table) => [primaryKey({ columns: [table.memberId, table.groupId] }), index('organization_member_groups_group_idx').on(table.groupId)],
);

export const invitations = /* @__PURE__ */ platform.table(
  'invitations',
  () => ({
    id: serial('id').primaryKey(),
    /** The invitation token sent to the invitee. */
    uuid: uuid('uuid').notNull().defaultRandom().unique(),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    inviteeIdentifier: varchar('invitee_identifier', { length: 254 }).notNull(),
    invitedById: integer('invited_by_id').references(() => users.id, { onDelete: 'set null' }),
    permissions: text('permissions').array().notNull().default(sql`'{}'::text[]`),
    invitationConfig: jsonb('invitation_config').notNull().default({}),
    /** pending, accepted, cancelled or expired. */
    status: varchar('status', { length: 20 }).notNull().default('pending'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
  }),
  (table) => [index('invitations_organization_idx').on(table.organizationId)],
);

/** A site is a tenant; its data lives in its own PostgreSQL schema, named by `schema_name`. */
export const sites = /* @__PURE__ */ platform.table(
  'sites',
  () => ({
    id: serial('id').primaryKey(),
    uuid: uuid('uuid').notNull().defaultRandom().unique(),
    // Restrict, not cascade: deleting an organization must drop its sites' schemas first.
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'restrict' }),
    slug: varchar('slug', { length: 50 }).notNull().unique(),
    name: varchar('name', { length: 255 }).notNull(),
    description: text('description').notNull().default(''),
    schemaName: varchar('schema_name', { length: 63 }).notNull().unique(),
    environment: varchar('environment', { length: 20 }).notNull().default('production'),
    isActive: boolean('is_active').notNull().default(true),
    ...timestamps,
  }),
  (table) => [index('sites_organization_idx').on(table.organizationId)],
);

/** Host names that lead to a site; a domain belongs to one site platform-wide. */
export const domains = /* @__PURE__ */ platform.table(
  'domains',
  () => ({
    id: serial('id').primaryKey(),
    uuid: uuid('uuid').notNull().defaultRandom().unique(),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    slug: varchar('slug', { length: 255 }).notNull().unique(),
    /** Lower-case host name without port. */
    domain: varchar('domain', { length: 253 }).notNull().unique(),
    isPrimary: boolean('is_primary').notNull().default(false),
    isActive: boolean('is_active').notNull().default(true),
    ...timestamps,
  }),
  (table) => [
    index('domains_site_idx').on(table.siteId),
    uniqueIndex('domains_one_primary_per_site_key').on(table.siteId).where(sql`${table.isPrimary}`),
  ],
);

/** The user↔site relation: which site permissions (`view_site`, `manage_site`, ...) a user holds where. */
export const siteUserPermissions = /* @__PURE__ */ platform.table(
  'site_user_permissions',
  () => ({
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    permissionId: integer('permission_id')
      .notNull()
      .references(() => permissions.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  }),
  (table) => [
    primaryKey({ columns: [table.siteId, table.userId, table.permissionId] }),
    index('site_user_permissions_user_idx').on(table.userId),
  ],
);

export type UserRow = typeof users.$inferSelect;
export type NewUserRow = typeof users.$inferInsert;
export type SiteRow = typeof sites.$inferSelect;
export type OrganizationRow = typeof organizations.$inferSelect;
export type MemberRow = typeof organizationMembers.$inferSelect;
export type InvitationRow = typeof invitations.$inferSelect;
export type DomainRow = typeof domains.$inferSelect;

/**
 * Request counters of the rate limits, one row per limit and caller (or source IP): a fixed window
 * that starts over when a request arrives after its window ended. Every Lambda shares them. The
 * table is UNLOGGED (migration 0006, which drizzle cannot express): see that migration for why.
 */
export const rateLimitCounters = /* @__PURE__ */ platform.table('rate_limit_counters', () => ({
  key: text('key').primaryKey(),
  /** Epoch seconds at which the current window began. */
  windowStart: integer('window_start').notNull(),
  hits: integer('hits').notNull(),
}));

/** Sign-in providers of the platform itself (a tenant's own are in its schema, same columns). */
export const socialApps = /* @__PURE__ */ platform.table(
  'social_apps',
  () => ({
    id: serial('id').primaryKey(),
    provider: varchar('provider', { length: 50 }).notNull(),
    providerId: varchar('provider_id', { length: 100 }).notNull().default(''),
    name: varchar('name', { length: 255 }).notNull(),
    clientId: varchar('client_id', { length: 255 }).notNull(),
    /** Plaintext of rows written before secrets were sealed; emptied when start-up seals them. */
    secret: text('secret').notNull(),
    /** The secret sealed with the secrets key (AES-256-GCM `{iv, tag, ciphertext}`); null only before start-up seals a legacy row. */
    secretSealed: jsonb('secret_sealed'),
    key: text('key').notNull().default(''),
    settings: jsonb('settings').notNull().default({}),
    ...timestamps,
  }),
  // The sign-in URL names a provider by provider_id when set, else by provider: one app per name.
  (table) => [uniqueIndex('social_apps_login_name').on(sql`(coalesce(nullif(${table.providerId}, ''), ${table.provider}))`)],
);

/** A provider account linked to a platform user (the provider's `sub` is `uid`). */
export const socialAccounts = /* @__PURE__ */ platform.table(
  'social_accounts',
  () => ({
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    socialAppId: integer('social_app_id')
      .notNull()
      .references(() => socialApps.id),
    uid: varchar('uid', { length: 255 }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  }),
  (table) => [uniqueIndex('social_accounts_app_uid').on(table.socialAppId, table.uid), index('social_accounts_user').on(table.userId)],
);

/**
 * A programmatic sign-in under way: the `state` handed to the client, with the PKCE verifier and
 * nonce it must come back with. Used once (deleted when redeemed) and short-lived.
 */
export const socialLoginStates = /* @__PURE__ */ platform.table('social_login_states', () => ({
  state: varchar('state', { length: 128 }).primaryKey(),
  socialAppId: integer('social_app_id').notNull(),
  /** The site whose provider this is; null for the platform's own. */
  siteId: integer('site_id'),
  redirectUri: text('redirect_uri').notNull(),
  codeVerifier: varchar('code_verifier', { length: 128 }).notNull(),
  nonce: varchar('nonce', { length: 128 }).notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
}));

/**
 * The hosted subdomain registry: every frontend worker's full domain, across all sites, so a domain
 * is taken once platform-wide, and the host → active build mapping that serving reads (the dev
 * server here, the CloudFront KeyValueStore deployed). `buildPrefix` is null until a build is active.
 */
export const hostedDomains = /* @__PURE__ */ platform.table(
  'hosted_domains',
  () => ({
    /** Lower-case host name without port: `<prefix><subdomain>.<hosted or customer domain>`. */
    fullDomain: varchar('full_domain', { length: 253 }).primaryKey(),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    workerSlug: varchar('worker_slug', { length: 100 }).notNull(),
    workerName: varchar('worker_name', { length: 255 }).notNull(),
    /** Where the active build's files start in the builds store: `<site uuid>/<build uuid>`. */
    buildPrefix: varchar('build_prefix', { length: 100 }),
    ...timestamps,
  }),
  (table) => [uniqueIndex('hosted_domains_site_worker_key').on(table.siteId, table.workerSlug)],
);

/**
 * Deleted sites whose bytes (objects, hosted builds, all under `<site uuid>/`) are still to be
 * removed from the stores. Queued in the transaction that drops the site, so a crash or a store
 * failure after the commit cannot leave bytes behind for good; the maintenance sweep works the
 * queue and removes a row only once both stores are empty of the site.
 */
export const tenantPurges = /* @__PURE__ */ platform.table('tenant_purges', () => ({
  id: serial('id').primaryKey(),
  siteUuid: uuid('site_uuid').notNull(),
  /**
   * The hosts the site's workers claimed when it was deleted (their registry rows cascade with the
   * site): deployed, each may still be a key of the edge's KeyValueStore, removed by the purge.
   */
  hosts: text('hosts').array().notNull().default(sql`'{}'::text[]`),
  attempts: integer('attempts').notNull().default(0),
  lastError: text('last_error'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}));

/**
 * Where a maintenance step that works through a large store a slice per run stopped: the orphan
 * sweep lists the object store in key order from `position` (a storage key) and goes on from there
 * on the next run; no row (or a null position) starts from the beginning.
 */
export const maintenanceCursors = /* @__PURE__ */ platform.table('maintenance_cursors', () => ({
  name: varchar('name', { length: 100 }).primaryKey(),
  position: text('position'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}));

/**
 * The password-strength estimator's word lists (zxcvbn's common passwords, English words, names,
 * Wikipedia, diceware and word sequences), seeded by the deploy migration (seed-password-words.ts).
 * `position` keeps the lists in the order the estimator is given them; `version` is a hash of every
 * list, so a dependency upgrade that changes a word reseeds them all.
 */
export const passwordWordLists = /* @__PURE__ */ platform.table('password_word_lists', () => ({
  name: varchar('name', { length: 64 }).primaryKey(),
  position: integer('position').notNull(),
  maxWordSize: integer('max_word_size').notNull(),
  words: integer('words').notNull(),
  version: varchar('version', { length: 64 }).notNull(),
}));

/** Each word of each list with its rank there (1 is the most common); a check asks for a few hundred words at once. */
export const passwordWords = /* @__PURE__ */ platform.table(
  'password_words',
  () => ({
    word: text('word').notNull(),
    list: varchar('list', { length: 64 }).notNull(),
    rank: integer('rank').notNull(),
  }),
  (table) => [primaryKey({ columns: [table.word, table.list] })],
);
