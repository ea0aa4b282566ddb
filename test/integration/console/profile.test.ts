import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

describe('profile API', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  describe('read and update', () => {
    it("returns the caller's own account, never the password hash", async () => {
      const user = await app.createUser('prof-reader', { first_name: 'Ada', last_name: 'Lovelace' });
      const { access } = await app.login('prof-reader', USER_PASSWORD);

      const answer = await app.request('GET', '/api/profile/', { token: access });

      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        id: user.id,
        uuid: user.uuid,
        username: 'prof-reader',
        email: 'prof-reader@example.com',
        first_name: 'Ada',
        last_name: 'Lovelace',
      });
      expect(JSON.stringify(answer.body)).not.toMatch(/password|scrypt/);
    });

    it('needs a signed-in caller', async () => {
      expect((await app.request('GET', '/api/profile/')).status).toBe(401);
      expect((await app.request('PUT', '/api/profile/', { body: { first_name: 'X' } })).status).toBe(401);
    });

    it('changes names and email and ignores fields the profile does not own', async () => {
      await app.createUser('prof-editor');
      const { access } = await app.login('prof-editor', USER_PASSWORD);

      const answer = await app.request('PUT', '/api/profile/', {
        token: access,
        body: { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com', username: 'root', is_superuser: true },
      });

      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        username: 'prof-editor',
        first_name: 'Grace',
        last_name: 'Hopper',
        email: 'grace@example.com',
        is_superuser: false,
      });
      const reread = await app.request('GET', '/api/profile/', { token: access });
      expect(reread.body).toEqual(answer.body);
    });

    it('keeps fields that are not sent', async () => {
      await app.createUser('prof-partial', { first_name: 'Keep', last_name: 'Me' });
      const { access } = await app.login('prof-partial', USER_PASSWORD);

      const answer = await app.request('PUT', '/api/profile/', { token: access, body: { last_name: 'Changed' } });

      expect(answer.body).toMatchObject({ first_name: 'Keep', last_name: 'Changed', email: 'prof-partial@example.com' });
    });

    it('refuses an email another user has, whatever its case, with a field error', async () => {
      await app.createUser('prof-taken');
      await app.createUser('prof-taker');
      const { access } = await app.login('prof-taker', USER_PASSWORD);

      const answer = await app.request('PUT', '/api/profile/', { token: access, body: { email: 'PROF-TAKEN@example.com' } });

      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: { email: ['A user with that email already exists.'] } });
      const own = await app.request('PUT', '/api/profile/', { token: access, body: { email: 'Prof-Taker@example.com' } });
      expect(own.status).toBe(200);
    });

    it('refuses a malformed email with a field error', async () => {
      await app.createUser('prof-bad-email');
      const { access } = await app.login('prof-bad-email', USER_PASSWORD);

      const answer = await app.request('PUT', '/api/profile/', { token: access, body: { email: 'not an email', first_name: 7 } });

      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body.errors).sort()).toEqual(['email', 'first_name']);
    });
  });

  describe('change password', () => {
    it('refuses a wrong old password with a field error and keeps the password', async () => {
      await app.createUser('prof-wrong');
      const { access } = await app.login('prof-wrong', USER_PASSWORD);

      const answer = await app.request('POST', '/api/profile/change-password/', {
        token: access,
        body: { old_password: 'not-my-password', new_password: 'brand-new-password' },
      });

      expect(answer.status).toBe(400);
      expect(answer.body.errors).toEqual({ old_password: [expect.stringContaining('incorrectly')] });
      await app.login('prof-wrong', USER_PASSWORD);
      expect((await app.request('GET', '/api/profile/', { token: access })).status).toBe(200);
    });

    it('refuses a new password shorter than 8 characters, and missing fields', async () => {
      await app.createUser('prof-short');
      const { access } = await app.login('prof-short', USER_PASSWORD);

      const short = await app.request('POST', '/api/profile/change-password/', {
        token: access,
        body: { old_password: USER_PASSWORD, new_password: 'short' },
      });
      expect(short.status).toBe(400);
      expect(short.body.errors.new_password).toBeDefined();
      const empty = await app.request('POST', '/api/profile/change-password/', { token: access, body: {} });
      expect(Object.keys(empty.body.errors).sort()).toEqual(['new_password', 'old_password']);
    });

    it('ends every earlier access and refresh token and answers with a fresh pair', async () => {
      await app.createUser('prof-changer');
      const first = await app.login('prof-changer', USER_PASSWORD);
      const second = await app.login('prof-changer', USER_PASSWORD);

      const answer = await app.request('POST', '/api/profile/change-password/', {
        token: first.access,
        body: { old_password: USER_PASSWORD, new_password: 'a-much-better-password' },
      });

      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ access: expect.any(String), refresh: expect.any(String) });
      for (const old of [first, second]) {
        const oldAccess = await app.request('GET', '/api/profile/', { token: old.access });
        expect(oldAccess.status).toBe(401);
        const oldRefresh = await app.request('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: old.refresh } });
        expect(oldRefresh.status).toBe(401);
        expect(oldRefresh.body.code).toBe('INVALID_TOKEN');
      }
      const withNewAccess = await app.request('GET', '/api/profile/', { token: answer.body.access });
      expect(withNewAccess.status).toBe(200);
      const withNewRefresh = await app.request('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: answer.body.refresh } });
      expect(withNewRefresh.status).toBe(200);
    });

    it('makes the new password the one that signs in', async () => {
      await app.createUser('prof-relogin');
      const { access } = await app.login('prof-relogin', USER_PASSWORD);
      await app.request('POST', '/api/profile/change-password/', {
        token: access,
        body: { old_password: USER_PASSWORD, new_password: 'another-new-password' },
      });

      const withOld = await app.request('POST', '/api/auth/jwt/token/', { body: { username: 'prof-relogin', password: USER_PASSWORD } });
      expect(withOld.status).toBe(401);
      const withNew = await app.request('POST', '/api/auth/jwt/token/', {
        body: { username: 'prof-relogin', password: 'another-new-password' },
      });
      expect(withNew.status).toBe(200);
      expect((await app.request('GET', '/api/profile/', { token: withNew.body.access })).status).toBe(200);
    });
  });
});
