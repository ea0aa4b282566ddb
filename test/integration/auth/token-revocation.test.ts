// What ends a session, probed as issue 12 did: reuse of a rotated refresh token revokes its whole
// family; a password reset, a deactivation and a soft delete cut off every token issued before
// them, to the millisecond, and bringing the account back does not revive those tokens.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningKeys } from '#shared/auth/signing-keys.ts';
import { TokenIssuer, type TokenPair } from '#shared/auth/tokens.ts';
import { ADMIN, startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';
import { testDriver } from '#test/support/test-database.ts';

describe('token revocation', () => {
  let app: TestApp;
  let admin: string;

  const profile = (access: string) => app.request('GET', '/api/profile/', { token: access });
  const refresh = (token: string) => app.request('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: token } });

  /** Signs a pair as the platform does, at a chosen instant. */
  async function pairAt(instant: number, user: { uuid: string; username: string }): Promise<TokenPair> {
    const keys = await loadSigningKeys(app.runtime.config);
    const { issuer, accessTtlSeconds, refreshTtlSeconds } = app.runtime.config.tokens;
    return new TokenIssuer(keys, { issuer, accessTtlSeconds, refreshTtlSeconds }, () => new Date(instant)).issuePair(user);
  }

  async function cutOffOf(username: string): Promise<number> {
    const [row] = await app.runtime.db.rows<{ ms: number }>(
      sql`select (extract(epoch from tokens_valid_after) * 1000)::float8 as ms from platform.users where username = ${username}`,
    );
    return Number(row!.ms);
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
  });
  afterAll(async () => {
    await app.close();
  });

  describe('refresh token reuse', () => {
    it('answers 401 and revokes the whole family: the successor pair stops working', async () => {
      // Prepare: a sign-in rotated once; the thief and the client both hold the first refresh token
      await app.createUser('family-user');
      const first = await app.login('family-user', USER_PASSWORD);
      const rotated = await refresh(first.refresh);
      expect(rotated.status).toBe(200);
      const again = await refresh(rotated.body.refresh);
      expect(again.status).toBe(200);
      // Act
      const reuse = await refresh(first.refresh);
      // Assess
      expect(reuse.status).toBe(401);
      expect(reuse.body.code).toBe('INVALID_TOKEN');
      expect((await refresh(again.body.refresh)).status).toBe(401);
      expect((await profile(again.body.access)).status).toBe(401);
      expect((await profile(first.access)).status).toBe(401);
      const verified = await app.request('POST', '/api/cloud/auth/jwt/token/verify/', { body: { token: again.body.refresh } });
      expect(verified.status).toBe(401);
    });

    it('cuts the family off on tenant hosts too', async () => {
      // Prepare: a site, and the superuser's sign-in rotated once
      const org = await app.request('POST', '/api/cloud/organizations/', { token: admin, body: { name: 'Family Tenancy' } });
      const site = await app.request('POST', `/api/cloud/organizations/${org.body.data.slug}/sites/`, {
        token: admin,
        body: { name: 'Family Site' },
      });
      expect(site.status).toBe(201);
      const config = (access: string) =>
        app.request('GET', '/api/sites/config/', { token: access, headers: { 'x-tenant': site.body.slug } });
      const first = await app.login(ADMIN.username, ADMIN.password);
      const rotated = await refresh(first.refresh);
      expect((await config(rotated.body.access)).status).toBe(200);
      // Act
      expect((await refresh(first.refresh)).status).toBe(401);
      // Assess
      expect((await config(rotated.body.access)).status).toBe(401);
    });

    it('leaves the user’s other sign-ins alone', async () => {
      // Prepare
      await app.createUser('two-devices');
      const laptop = await app.login('two-devices', USER_PASSWORD);
      const phone = await app.login('two-devices', USER_PASSWORD);
      expect((await refresh(laptop.refresh)).status).toBe(200);
      // Act
      expect((await refresh(laptop.refresh)).status).toBe(401);
      // Assess
      expect((await profile(phone.access)).status).toBe(200);
      expect((await refresh(phone.refresh)).status).toBe(200);
    });

    it('ends the family at logout, access tokens not presented included', async () => {
      // Prepare
      await app.createUser('leaving');
      const first = await app.login('leaving', USER_PASSWORD);
      const rotated = await refresh(first.refresh);
      // Act
      const logout = await app.request('POST', '/api/auth/jwt/token/blacklist/', { body: { refresh: rotated.body.refresh } });
      // Assess
      expect(logout.status).toBe(200);
      expect((await profile(rotated.body.access)).status).toBe(401);
      expect((await refresh(rotated.body.refresh)).status).toBe(401);
    });
  });

  describe('cut-offs to the millisecond', () => {
    it('refuses a token from the same second as an administrator’s password reset, and accepts one issued after it', async () => {
      // Prepare
      const user = await app.createUser('reset-same-second');
      await app.login('reset-same-second', USER_PASSWORD);
      // Act
      const reset = await app.request('PATCH', '/api/cloud/users/reset-same-second/', {
        token: admin,
        body: { password: 'a-fresh-secret-phrase' },
      });
      expect(reset.status).toBe(200);
      const cutOff = await cutOffOf('reset-same-second');
      const before = await pairAt(Math.floor(cutOff / 1000) * 1000, user);
      const after = await pairAt(Math.floor(cutOff) + 1, user);
      // Assess
      expect((await profile(before.access.token)).status).toBe(401);
      expect((await refresh(before.refresh.token)).status).toBe(401);
      expect((await profile(after.access.token)).status).toBe(200);
      expect((await refresh(after.refresh.token)).status).toBe(200);
      const signedIn = await app.login('reset-same-second', 'a-fresh-secret-phrase');
      expect((await profile(signedIn.access)).status).toBe(200);
    });

    it('refuses a token from the same second as a soft delete, also after the user is restored', async () => {
      // Prepare
      const user = await app.createUser('deleted-same-second');
      const earlier = await app.login('deleted-same-second', USER_PASSWORD);
      // Act
      expect((await app.request('DELETE', '/api/cloud/users/deleted-same-second/', { token: admin })).status).toBe(204);
      const cutOff = await cutOffOf('deleted-same-second');
      const before = await pairAt(Math.floor(cutOff / 1000) * 1000, user);
      expect((await app.request('POST', '/api/cloud/users/deleted-same-second/restore/', { token: admin })).status).toBe(200);
      // Assess
      expect((await profile(before.access.token)).status).toBe(401);
      expect((await profile(earlier.access)).status).toBe(401);
      expect((await refresh(earlier.refresh)).status).toBe(401);
      const signedIn = await app.login('deleted-same-second', USER_PASSWORD);
      expect((await profile(signedIn.access)).status).toBe(200);
    });

    it('does not revive tokens issued before a deactivation when the user is reactivated', async () => {
      // Prepare
      const user = await app.createUser('paused-and-back');
      const earlier = await app.login('paused-and-back', USER_PASSWORD);
      // Act
      const off = await app.request('PATCH', '/api/cloud/users/paused-and-back/', { token: admin, body: { is_active: false } });
      expect(off.status).toBe(200);
      const cutOff = await cutOffOf('paused-and-back');
      const sameSecond = await pairAt(Math.floor(cutOff / 1000) * 1000, user);
      const on = await app.request('PATCH', '/api/cloud/users/paused-and-back/', { token: admin, body: { is_active: true } });
      expect(on.status).toBe(200);
      // Assess
      expect((await profile(earlier.access)).status).toBe(401);
      expect((await refresh(earlier.refresh)).status).toBe(401);
      expect((await profile(sameSecond.access.token)).status).toBe(401);
      const signedIn = await app.login('paused-and-back', USER_PASSWORD);
      expect((await profile(signedIn.access)).status).toBe(200);
    });

    it('gives tokens the issuing millisecond beside the whole-second iat', async () => {
      const { access } = await app.login('paused-and-back', USER_PASSWORD);
      const payload = JSON.parse(Buffer.from(access.split('.')[1]!, 'base64url').toString('utf8')) as {
        iat: number;
        iat_ms: number;
        fam: string;
      };
      expect(Number.isInteger(payload.iat)).toBe(true);
      expect(Math.floor(payload.iat_ms / 1000)).toBe(payload.iat);
      expect(payload.fam).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('a change that lands while a password sign-in checks the password', () => {
    // PGlite has one connection: a transaction of the test cannot stay open beside the request.
    it.runIf(testDriver === 'postgres')('answers 401 when the password changed while the sign-in checked the old one', async () => {
      // Prepare: the account row held, so the sign-in reads the old hash, checks it, and then waits.
      await app.createUser('racing-change');
      let pending: ReturnType<TestApp['request']> | undefined;
      await app.runtime.db.transaction(async (tx) => {
        await tx.run(sql`select id from platform.users where username = 'racing-change' for update`);

        // Act: the sign-in with the old password, then the change commits before it records the login
        pending = app.request('POST', '/api/auth/jwt/token/', { body: { username: 'racing-change', password: USER_PASSWORD } });
        let waited = false;
        for (let attempt = 0; attempt < 1_000 && !waited; attempt += 1) {
          waited = (await app.runtime.db.rows(sql`select 1 from pg_locks where not granted`)).length > 0;
          if (!waited) await new Promise((resolve) => setTimeout(resolve, 10));
        }
        if (!waited) throw new Error('the sign-in never waited on the held account row');
        await tx.run(sql`update platform.users set password_hash = 'changed-meanwhile', tokens_valid_after = now()
          where username = 'racing-change'`);
      });
      const answer = await pending!;

      // Assess: no tokens for a password that no longer holds, and no login recorded
      expect(answer.status).toBe(401);
      expect(answer.body).not.toHaveProperty('access');
      const [row] = await app.runtime.db.rows<{ last_login: Date | null }>(
        sql`select last_login from platform.users where username = 'racing-change'`,
      );
      expect(row!.last_login).toBeNull();
    });
  });
});
