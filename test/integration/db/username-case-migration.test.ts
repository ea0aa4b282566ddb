// Platform migration 0011 on a database that already holds usernames equal but for case (the code's
// check could be raced): every duplicate but the oldest gets a free derived name, nothing is lost,
// the unique index on lower(username) is in place, and every email starts unverified.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_MIGRATIONS_DIR } from '#shared/db/open-database.ts';
import { createEmptyTestDatabase, testDriver, type TestDatabase } from '#test/support/test-database.ts';

const MIGRATION = '0011_username_case_email_verified';

/** A copy of the migrations folder that stops before `tag`, as a database deployed before it was. */
async function migrationsBefore(tag: string): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), 'tessera-migrations-'));
  await cp(PLATFORM_MIGRATIONS_DIR, folder, { recursive: true });
  const journalFile = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(await readFile(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
  const at = journal.entries.findIndex((entry) => entry.tag === tag);
  expect(at).toBeGreaterThan(0);
  await writeFile(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return folder;
}

interface SeededUser {
  username: string;
  email: string;
  joined: string;
  deleted?: boolean;
}

const LONG = 'L'.repeat(150);
const SEEDED: SeededUser[] = [
  { username: 'foo', email: 'foo-1@example.com', joined: '2024-01-02T00:00:00Z' },
  { username: 'Foo', email: 'foo-2@example.com', joined: '2024-01-01T00:00:00Z' },
  { username: 'FOO', email: 'foo-3@example.com', joined: '2024-01-03T00:00:00Z', deleted: true },
  // Taken already (by an earlier hand-made rename): the next number is used instead.
  { username: 'foo~2', email: 'foo-4@example.com', joined: '2024-01-04T00:00:00Z' },
  { username: 'Bar', email: 'bar-1@example.com', joined: '2024-02-01T00:00:00Z' },
  { username: 'bar', email: 'bar-2@example.com', joined: '2024-02-01T00:00:00Z' },
  { username: LONG, email: 'long-1@example.com', joined: '2024-03-01T00:00:00Z' },
  { username: LONG.toLowerCase(), email: 'long-2@example.com', joined: '2024-03-02T00:00:00Z' },
  { username: 'alone', email: 'alone@example.com', joined: '2024-04-01T00:00:00Z' },
];

describe(`platform migration ${MIGRATION} on ${testDriver}`, () => {
  let test: TestDatabase;
  let before: string;
  let ids: Map<string, number>;

  beforeAll(async () => {
    // Prepare: the schema as it was, with case duplicates the code's check let through.
    test = await createEmptyTestDatabase();
    before = await migrationsBefore(MIGRATION);
    await test.db.applyMigrations(before);
    ids = new Map();
    for (const user of SEEDED) {
      const [row] = await test.db.rows<{ id: number }>(sql`insert into platform.users
        (username, email, password_hash, date_joined, is_deleted) values
        (${user.username}, ${user.email}, ${`hash-of-${user.email}`}, ${user.joined}, ${user.deleted ?? false}) returning id`);
      ids.set(user.email, row!.id);
    }
    await test.db.run(sql`insert into platform.social_apps (provider, provider_id, name, client_id, secret)
      values ('openid_connect', 'corp', 'Corp', 'client', 'secret')`);
    await test.db.run(sql`insert into platform.social_accounts (user_id, social_app_id, uid)
      select ${ids.get('alone@example.com')!}, id, 'alone-sub' from platform.social_apps`);

    // Act
    await test.db.applyMigrations(PLATFORM_MIGRATIONS_DIR);
  });
  afterAll(async () => {
    await test.dispose();
    await rm(before, { recursive: true, force: true });
  });

  async function usernameOf(email: string): Promise<string> {
    const [row] = await test.db.rows<{ username: string }>(sql`select username from platform.users where id = ${ids.get(email)!}`);
    return row!.username;
  }

  it('keeps the oldest of each case-duplicate group and gives the others a free derived name', async () => {
    // Assess
    expect(await usernameOf('foo-2@example.com')).toBe('Foo');
    expect(await usernameOf('foo-1@example.com')).toBe('foo~3');
    expect(await usernameOf('foo-3@example.com')).toBe('FOO~4');
    expect(await usernameOf('foo-4@example.com')).toBe('foo~2');
    // Same instant: the lower id is the older.
    expect(await usernameOf('bar-1@example.com')).toBe('Bar');
    expect(await usernameOf('bar-2@example.com')).toBe('bar~2');
    expect(await usernameOf('long-1@example.com')).toBe(LONG);
    expect(await usernameOf('long-2@example.com')).toBe(`${'l'.repeat(148)}~2`);
    expect(await usernameOf('alone@example.com')).toBe('alone');
  });

  it('loses no user and changes nothing but the usernames', async () => {
    // Assess
    const rows = await test.db.rows<{ id: number; email: string; password_hash: string; is_deleted: boolean }>(
      sql`select id, email, password_hash, is_deleted from platform.users order by id`,
    );
    expect(rows).toEqual(
      SEEDED.map((user) => ({
        id: ids.get(user.email),
        email: user.email,
        password_hash: `hash-of-${user.email}`,
        is_deleted: user.deleted ?? false,
      })),
    );
  });

  it('refuses a new case variant of a username, soft-deleted users included', async () => {
    // Act
    const variant = test.db.run(sql`insert into platform.users (username, email, password_hash)
      values ('fOo', 'variant@example.com', 'x')`);
    const deletedVariant = test.db.run(sql`insert into platform.users (username, email, password_hash)
      values ('foo~4', 'variant-2@example.com', 'x')`);

    // Assess
    await expect(variant).rejects.toMatchObject({ constraint: 'users_username_lower_key' });
    await expect(deletedVariant).rejects.toMatchObject({ constraint: 'users_username_lower_key' });
  });

  it('starts every email unverified, a linked user included', async () => {
    // Assess
    const verified = await test.db.rows(sql`select id from platform.users where email_verified`);
    expect(verified).toEqual([]);
  });
});
