// The claims revocation works from: the issuing millisecond (`iat_ms`) and the family (`fam`).
// Tokens signed before they existed, or with values that do not fit, fall back to the safe side:
// the start of the `iat` second, and no family.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { assertIssuedAfter } from '#shared/auth/authenticate.ts';
import { loadSigningKeys, SIGNING_ALGORITHM, type SigningKeys } from '#shared/auth/signing-keys.ts';
import { TokenIssuer } from '#shared/auth/tokens.ts';
import { loadConfig } from '#shared/config.ts';
import { InvalidTokenError } from '#shared/errors.ts';

const SETTINGS = { issuer: 'tessera', accessTtlSeconds: 900, refreshTtlSeconds: 3600 };
const USER = { uuid: '11111111-1111-4111-8111-111111111111', username: 'u' };
const INSTANT = new Date('2026-11-24T12:00:00.250Z');

async function setUp(): Promise<{ keys: SigningKeys; issuer: TokenIssuer }> {
  const keys = await loadSigningKeys(loadConfig({ DATA_DIR: await mkdtemp(path.join(tmpdir(), 'tessera-keys-')) }));
  return { keys, issuer: new TokenIssuer(keys, SETTINGS, () => INSTANT) };
}

function signed(keys: SigningKeys, extra: Record<string, unknown>): Promise<string> {
  const iat = Math.floor(INSTANT.getTime() / 1000);
  return new SignJWT({ token_type: 'access', ...extra })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: keys.kid })
    .setSubject(USER.uuid)
    .setIssuer('tessera')
    .setJti('22222222-2222-4222-8222-222222222222')
    .setIssuedAt(iat)
    .setExpirationTime(iat + 900)
    .sign(keys.privateKey);
}

describe('token claims', () => {
  it('keeps the issuing millisecond and one family for both tokens of a pair', async () => {
    const { issuer } = await setUp();
    const pair = await issuer.issuePair(USER);
    const access = await issuer.verify(pair.access.token, 'access');
    const refresh = await issuer.verify(pair.refresh.token, 'refresh');
    expect(access.issuedAt.toISOString()).toBe('2026-11-24T12:00:00.250Z');
    expect(access.familyId).toMatch(/^[0-9a-f-]{36}$/);
    expect(refresh.familyId).toBe(access.familyId);
    const rotated = await issuer.issuePair(USER, refresh.familyId);
    expect((await issuer.verify(rotated.refresh.token)).familyId).toBe(access.familyId);
    expect((await issuer.issuePair(USER)).access.claims.familyId).not.toBe(access.familyId);
  });

  it('counts a token without iat_ms, or with one outside its iat second, from the start of that second', async () => {
    const { keys, issuer } = await setUp();
    for (const extra of [{}, { iat_ms: INSTANT.getTime() + 5000 }, { iat_ms: '1795999999999' }, { iat_ms: 1.5 }]) {
      const claims = await issuer.verify(await signed(keys, extra), 'access');
      expect(claims.issuedAt.toISOString(), JSON.stringify(extra)).toBe('2026-11-24T12:00:00.000Z');
    }
  });

  it('ignores a family that is not a UUID', async () => {
    const { keys, issuer } = await setUp();
    for (const fam of ["x' or 1=1 --", 42, null]) {
      const claims = await issuer.verify(await signed(keys, { fam }), 'access');
      expect(claims.familyId).toBeUndefined();
    }
  });

  it('refuses a token issued at or before the cut-off and accepts one issued after it', async () => {
    const { issuer } = await setUp();
    const { access } = await issuer.issuePair(USER);
    expect(() => assertIssuedAfter(access.claims, INSTANT.getTime())).toThrow(InvalidTokenError);
    expect(() => assertIssuedAfter(access.claims, INSTANT.getTime() - 0.5)).not.toThrow();
    expect(() => assertIssuedAfter(access.claims, INSTANT.getTime() + 700)).toThrow(InvalidTokenError);
    expect(() => assertIssuedAfter(access.claims, null)).not.toThrow();
  });
});
