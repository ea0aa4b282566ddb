import { SignJWT, UnsecuredJWT, createLocalJWKSet, decodeJwt, generateKeyPair, jwtVerify } from 'jose';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningKeys } from '#shared/auth/signing-keys.ts';
import { TokenIssuer } from '#shared/auth/tokens.ts';
import { ADMIN, startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

describe('JWT tokens', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  const usersList = (token: string) => app.request('GET', '/api/cloud/users/', { token });

  describe('obtain', () => {
    it('returns an access and a refresh token for valid credentials', async () => {
      const answer = await app.request('POST', '/api/auth/jwt/token/', { body: ADMIN });
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body).sort()).toEqual(['access', 'refresh']);
      expect((await usersList(answer.body.access)).status).toBe(200);
    });

    it('adds the signed-in user on the console path', async () => {
      const answer = await app.request('POST', '/api/cloud/auth/jwt/token/', { body: ADMIN });
      expect(answer.status).toBe(200);
      expect(answer.body.user).toEqual({ uuid: expect.any(String), username: 'admin', email: ADMIN.email });
    });

    it('issues access tokens that last 15 minutes and carry a jti', async () => {
      const { access, refresh } = await app.login(ADMIN.username, ADMIN.password);
      const claims = decodeJwt(access);
      expect(claims.exp! - claims.iat!).toBe(900);
      expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
      expect(decodeJwt(refresh).jti).not.toBe(claims.jti);
    });

    it('refuses a wrong password and an unknown user with the same 401', async () => {
      const wrong = await app.request('POST', '/api/auth/jwt/token/', { body: { username: 'admin', password: 'nope-nope' } });
      const unknown = await app.request('POST', '/api/auth/jwt/token/', { body: { username: 'ghost', password: 'nope-nope' } });
      for (const answer of [wrong, unknown]) {
        expect(answer.status).toBe(401);
        expect(answer.body).toMatchObject({ status: 'error', code: 'AUTHENTICATION_FAILED' });
        expect(answer.body.detail).toBe('No active account found with the given credentials');
      }
    });

    it('reports missing credentials as field errors', async () => {
      const answer = await app.request('POST', '/api/auth/jwt/token/', { body: {} });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: { username: ['This field is required.'], password: ['This field is required.'] },
      });
    });

    it('answers malformed JSON with 400 BAD_REQUEST', async () => {
      const answer = await app.request('POST', '/api/auth/jwt/token/', { body: '{"username":' });
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('BAD_REQUEST');
    });
  });

  describe('refresh', () => {
    it('rotates: returns a new pair, and the new refresh token rotates again', async () => {
      const first = await app.login(ADMIN.username, ADMIN.password);
      const rotated = await app.request('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: first.refresh } });
      expect(rotated.status).toBe(200);
      expect(rotated.body.refresh).not.toBe(first.refresh);
      expect((await usersList(rotated.body.access)).status).toBe(200);

      const next = await app.request('POST', '/api/cloud/auth/jwt/token/refresh/', { body: { refresh: rotated.body.refresh } });
      expect(next.status).toBe(200);

      // Reuse of a rotated token: see token-revocation.test.ts for what it does to the family.
      const reuse = await app.request('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: first.refresh } });
      expect(reuse.status).toBe(401);
      expect(reuse.body.code).toBe('INVALID_TOKEN');
    });

    it('lets only one of two simultaneous refreshes with the same token through', async () => {
      const { refresh } = await app.login(ADMIN.username, ADMIN.password);
      const answers = await Promise.all([
        app.request('POST', '/api/auth/jwt/token/refresh/', { body: { refresh } }),
        app.request('POST', '/api/auth/jwt/token/refresh/', { body: { refresh } }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 401]);
    });

    it('refuses an access token where a refresh token is expected', async () => {
      const { access } = await app.login(ADMIN.username, ADMIN.password);
      const answer = await app.request('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: access } });
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('INVALID_TOKEN');
    });
  });

  describe('verify', () => {
    it('accepts a valid access or refresh token and says which it is', async () => {
      const { access, refresh } = await app.login(ADMIN.username, ADMIN.password);
      const forAccess = await app.request('POST', '/api/cloud/auth/jwt/token/verify/', { body: { token: access } });
      const forRefresh = await app.request('POST', '/api/auth/jwt/token/verify/', { body: { token: refresh } });
      expect(forAccess).toMatchObject({ status: 200, body: { token_type: 'access' } });
      expect(forRefresh).toMatchObject({ status: 200, body: { token_type: 'refresh' } });
    });

    it('refuses a token whose payload was altered', async () => {
      const { access } = await app.login(ADMIN.username, ADMIN.password);
      const [header, payload, signature] = access.split('.');
      const altered = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), username: 'someone-else' }),
      ).toString('base64url');
      const answer = await app.request('POST', '/api/cloud/auth/jwt/token/verify/', {
        body: { token: `${header}.${altered}.${signature}` },
      });
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('INVALID_TOKEN');
    });
  });

  describe('blacklist', () => {
    it('blacklists a refresh token so it cannot be refreshed', async () => {
      const { refresh } = await app.login(ADMIN.username, ADMIN.password);
      const logout = await app.request('POST', '/api/auth/jwt/token/blacklist/', { body: { refresh } });
      expect(logout.status).toBe(200);
      const reuse = await app.request('POST', '/api/auth/jwt/token/refresh/', { body: { refresh } });
      expect(reuse.status).toBe(401);
    });

    it('revokes the bearer access token too on the console path', async () => {
      const { access, refresh } = await app.login(ADMIN.username, ADMIN.password);
      expect((await usersList(access)).status).toBe(200);
      const logout = await app.request('POST', '/api/cloud/auth/jwt/token/blacklist/', { token: access, body: { refresh } });
      expect(logout.status).toBe(200);
      const after = await usersList(access);
      expect(after.status).toBe(401);
      expect(after.body.code).toBe('INVALID_TOKEN');
    });
  });

  describe('forged and broken access tokens', () => {
    const otherIssuer = async () => {
      const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
      return { privateKey, publicKey };
    };

    async function adminSubject(): Promise<string> {
      const [row] = await app.runtime.db.rows<{ uuid: string }>(
        sql`select uuid::text as uuid from platform.users where username = 'admin'`,
      );
      return row!.uuid;
    }

    it('refuses a token with a tampered signature', async () => {
      const { access } = await app.login(ADMIN.username, ADMIN.password);
      const tampered = `${access.slice(0, -4)}${access.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
      const answer = await usersList(tampered);
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ code: 'INVALID_TOKEN', detail: expect.any(String) });
    });

    it('refuses an unsigned token (alg none)', async () => {
      const unsigned = new UnsecuredJWT({ token_type: 'access' })
        .setSubject(await adminSubject())
        .setIssuer('tessera')
        .setJti('00000000-0000-4000-8000-000000000001')
        .setIssuedAt()
        .setExpirationTime('10m')
        .encode();
      expect((await usersList(unsigned)).status).toBe(401);
    });

    it('refuses a token signed by another key', async () => {
      const { privateKey } = await otherIssuer();
      const forged = await new SignJWT({ token_type: 'access' })
        .setProtectedHeader({ alg: 'EdDSA' })
        .setSubject(await adminSubject())
        .setIssuer('tessera')
        .setJti('00000000-0000-4000-8000-000000000002')
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(privateKey);
      expect((await usersList(forged)).status).toBe(401);
    });

    it('refuses an expired token', async () => {
      const keys = await loadSigningKeys(app.runtime.config);
      const past = new TokenIssuer(
        keys,
        { issuer: 'tessera', accessTtlSeconds: 900, refreshTtlSeconds: 3600 },
        () => new Date(Date.now() - 3600_000),
      );
      const { access } = await past.issuePair({ uuid: await adminSubject(), username: 'admin' });
      const answer = await usersList(access.token);
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('INVALID_TOKEN');
    });

    it('refuses a correctly signed token without exp', async () => {
      const keys = await loadSigningKeys(app.runtime.config);
      const noExpiry = await new SignJWT({ token_type: 'access' })
        .setProtectedHeader({ alg: 'EdDSA', kid: keys.kid })
        .setSubject(await adminSubject())
        .setIssuer('tessera')
        .setJti('00000000-0000-4000-8000-000000000003')
        .setIssuedAt()
        .sign(keys.privateKey);
      expect((await usersList(noExpiry)).status).toBe(401);
    });

    it('refuses a refresh token used as an access token', async () => {
      const { refresh } = await app.login(ADMIN.username, ADMIN.password);
      const answer = await usersList(refresh);
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('INVALID_TOKEN');
    });

    it('answers a missing token with 401 AUTHENTICATION_FAILED and a detail', async () => {
      const answer = await app.request('GET', '/api/cloud/users/');
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ code: 'AUTHENTICATION_FAILED', detail: expect.any(String) });
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    });
  });

  describe('disabled accounts', () => {
    it('stops an inactive user from obtaining, refreshing or using tokens', async () => {
      await app.createUser('sleepy');
      const tokens = await app.login('sleepy', USER_PASSWORD);
      await app.request('PATCH', '/api/cloud/users/sleepy/', { token: await app.adminToken(), body: { is_active: false } });

      const obtain = await app.request('POST', '/api/auth/jwt/token/', { body: { username: 'sleepy', password: USER_PASSWORD } });
      expect(obtain.status).toBe(401);
      const refresh = await app.request('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: tokens.refresh } });
      expect(refresh.status).toBe(401);
      expect((await usersList(tokens.access)).status).toBe(401);
    });

    it('stops a soft-deleted user from obtaining or refreshing tokens', async () => {
      await app.createUser('leaving');
      const tokens = await app.login('leaving', USER_PASSWORD);
      const removal = await app.request('DELETE', '/api/cloud/users/leaving/', { token: await app.adminToken() });
      expect(removal.status).toBe(204);

      const obtain = await app.request('POST', '/api/auth/jwt/token/', { body: { username: 'leaving', password: USER_PASSWORD } });
      expect(obtain.status).toBe(401);
      const refresh = await app.request('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: tokens.refresh } });
      expect(refresh.status).toBe(401);
      expect((await usersList(tokens.access)).status).toBe(401);
    });
  });

  describe('JWKS', () => {
    it('publishes the public key that verifies issued access tokens', async () => {
      const answer = await app.request('GET', '/.well-known/jwks.json');
      expect(answer.status).toBe(200);
      expect(answer.body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: expect.any(String) });
      expect(answer.body.keys[0].d).toBeUndefined();
      const { access } = await app.login(ADMIN.username, ADMIN.password);
      const verified = await jwtVerify(access, createLocalJWKSet(answer.body), { algorithms: ['EdDSA'] });
      expect(verified.payload.token_type).toBe('access');
    });
  });

  it('stores passwords only as scrypt hashes', async () => {
    const [row] = await app.runtime.db.rows<{ password_hash: string }>(
      sql`select password_hash from platform.users where username = 'admin'`,
    );
    expect(row!.password_hash).toMatch(/^scrypt\$\d+\$8\$1\$/);
    expect(row!.password_hash).not.toContain(ADMIN.password);
  });
});
