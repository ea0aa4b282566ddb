// Usernames are unique whatever their case (README, console: users), like emails: every path that
// sets one refuses a case variant of another account's username with the duplicate's field error.
// Sign-in still matches the username exactly.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';
import { testDriver } from '#test/support/test-database.ts';

const TAKEN = { status: 'error', code: 'VALIDATION_ERROR', errors: { username: ['A user with that username already exists.'] } };

describe('usernames unique whatever the case', () => {
  let app: TestApp;
  let admin: string;
  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    await app.createUser('uc-alice');
    await app.createUser('uc-bob');
  });
  afterAll(async () => {
    await app.close();
  });

  async function usernamesLike(name: string): Promise<string[]> {
    const rows = await app.runtime.db.rows<{ username: string }>(
      sql`select username from platform.users where lower(username) = lower(${name}) order by username`,
    );
    return rows.map((row) => row.username);
  }

  it('returns 400 on username when a new user takes a case variant of an existing username', async () => {
    // Act
    const answer = await app.request('POST', '/api/cloud/users/', {
      token: admin,
      body: { username: 'ADMIN', email: 'upper-admin@example.com', password: USER_PASSWORD },
    });

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject(TAKEN);
    expect(await usernamesLike('admin')).toEqual(['admin']);
  });

  it('returns 400 on username when PATCH or PUT renames to a case variant of another username', async () => {
    // Act
    const patched = await app.request('PATCH', '/api/cloud/users/uc-bob/', { token: admin, body: { username: 'Admin' } });
    const put = await app.request('PUT', '/api/cloud/users/uc-bob/', {
      token: admin,
      body: { username: 'UC-Alice', email: 'uc-bob@example.com' },
    });

    // Assess
    expect(patched.status).toBe(400);
    expect(patched.body).toMatchObject(TAKEN);
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject(TAKEN);
    expect(await usernamesLike('uc-bob')).toEqual(['uc-bob']);
    expect(await usernamesLike('admin')).toEqual(['admin']);
  });

  it("lets a user's own username change case", async () => {
    await app.createUser('uc-carol');
    const answer = await app.request('PATCH', '/api/cloud/users/uc-carol/', { token: admin, body: { username: 'UC-Carol' } });
    expect(answer.status).toBe(200);
    expect(answer.body.username).toBe('UC-Carol');
  });

  it('returns 400 on username when an invitation is accepted with a case variant of an existing username', async () => {
    // Prepare
    const org = await app.request('POST', '/api/cloud/organizations/', { token: admin, body: { name: 'Case Org' } });
    const invitation = await app.request('POST', `/api/cloud/organizations/${org.body.data.slug}/invitations/`, {
      token: admin,
      body: { invitee_identifier: 'uc-newcomer@example.com' },
    });
    expect(invitation.status).toBe(201);

    // Act
    const accepted = await app.request('POST', `/api/cloud/invitations/${invitation.body.uuid}/accept/`, {
      body: { username: 'UC-ALICE', password: 'newcomer-password-1' },
    });

    // Assess
    expect(accepted.status).toBe(400);
    expect(accepted.body).toMatchObject(TAKEN);
    expect(await usernamesLike('uc-alice')).toEqual(['uc-alice']);
    const [row] = await app.runtime.db.rows<{ status: string }>(
      sql`select status from platform.invitations where uuid = ${invitation.body.uuid}`,
    );
    expect(row!.status).toBe('pending');
  });

  it('answers one 201 and one 400 (never a 500) when Foo and foo are created at the same time', async () => {
    // Prepare: several pairs, so that some reach the unique index past the check in code.
    const names = ['Race-A', 'Race-B', 'Race-C', 'Race-D', 'Race-E'];
    const create = (username: string) =>
      app.request('POST', '/api/cloud/users/', {
        token: admin,
        body: {
          username,
          email: `${username.toLowerCase()}-${username === username.toLowerCase() ? 'lower' : 'mixed'}@example.com`,
          password: USER_PASSWORD,
        },
      });

    // Act
    const answers = await Promise.all(names.map((name) => Promise.all([create(name), create(name.toLowerCase())])));

    // Assess
    for (const [index, pair] of answers.entries()) {
      expect(pair.map((answer) => answer.status).sort()).toEqual([201, 400]);
      expect(pair.find((answer) => answer.status === 400)!.body).toMatchObject(TAKEN);
      expect(await usernamesLike(names[index]!)).toHaveLength(1);
    }
  });

  // PGlite has one connection: a transaction of the test cannot stay open beside the request.
  it.runIf(testDriver === 'postgres')(
    'answers 400 on username when the unique index refuses a variant the check could not see',
    async () => {
      // Prepare: a variant inserted but not committed yet, invisible to the check in code.
      let pending: ReturnType<TestApp['request']> | undefined;
      await app.runtime.db.transaction(async (tx) => {
        await tx.run(sql`insert into platform.users (username, email, password_hash) values ('Held-Race', 'held-race@example.com', 'x')`);

        // Act
        pending = app.request('POST', '/api/cloud/users/', {
          token: admin,
          body: { username: 'held-race', email: 'held-race-2@example.com', password: USER_PASSWORD },
        });
        // The request's insert waits for this transaction on the index entry; then it commits.
        for (let attempt = 0; attempt < 500; attempt += 1) {
          const waiting = await app.runtime.db.rows(sql`select 1 from pg_locks where not granted`);
          if (waiting.length > 0) return;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        throw new Error('the request never waited on the uncommitted variant');
      });
      const answer = await pending!;

      // Assess
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject(TAKEN);
      expect(await usernamesLike('held-race')).toEqual(['Held-Race']);
    },
  );

  it('signs in by the exact username only, as before', async () => {
    const exact = await app.request('POST', '/api/auth/jwt/token/', { body: { username: ADMIN.username, password: ADMIN.password } });
    const otherCase = await app.request('POST', '/api/auth/jwt/token/', { body: { username: 'ADMIN', password: ADMIN.password } });
    expect(exact.status).toBe(200);
    expect(otherCase.status).toBe(401);
  });
});
