// The signature of a token is checked once per process (TokenIssuer keeps what it verified); these
// tests show that what may change between two uses of the same token is still checked every time.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '#shared/config.ts';
import { loadSigningKeys } from '#shared/auth/signing-keys.ts';
import { TokenIssuer } from '#shared/auth/tokens.ts';
import { InvalidTokenError } from '#shared/errors.ts';

const SETTINGS = { issuer: 'tessera', accessTtlSeconds: 900, refreshTtlSeconds: 3600 };

async function issuerWithClock(): Promise<{ issuer: TokenIssuer; clock: { now: Date } }> {
  const keys = await loadSigningKeys(loadConfig({ DATA_DIR: await mkdtemp(path.join(tmpdir(), 'tessera-keys-')) }));
  const clock = { now: new Date('2026-11-24T12:00:00Z') };
  return { issuer: new TokenIssuer(keys, SETTINGS, () => clock.now), clock };
}

describe('token verification', () => {
  it('accepts the same access token again with the same claims', async () => {
    const { issuer } = await issuerWithClock();
    const { access } = await issuer.issuePair({ uuid: '11111111-1111-4111-8111-111111111111', username: 'u' });
    const first = await issuer.verify(access.token, 'access');
    expect(await issuer.verify(access.token, 'access')).toEqual(first);
    expect(first.subject).toBe('11111111-1111-4111-8111-111111111111');
  });

  it('refuses a token that was accepted before once it has expired', async () => {
    const { issuer, clock } = await issuerWithClock();
    const { access } = await issuer.issuePair({ uuid: '11111111-1111-4111-8111-111111111111', username: 'u' });
    await issuer.verify(access.token, 'access');
    clock.now = new Date(clock.now.getTime() + 901_000);
    await expect(issuer.verify(access.token, 'access')).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('refuses a verified refresh token where an access token is expected, every time', async () => {
    const { issuer } = await issuerWithClock();
    const { refresh } = await issuer.issuePair({ uuid: '11111111-1111-4111-8111-111111111111', username: 'u' });
    expect((await issuer.verify(refresh.token)).type).toBe('refresh');
    await expect(issuer.verify(refresh.token, 'access')).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(issuer.verify(refresh.token, 'access')).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('refuses a token whose signature was altered after the original was accepted', async () => {
    const { issuer } = await issuerWithClock();
    const { access } = await issuer.issuePair({ uuid: '11111111-1111-4111-8111-111111111111', username: 'u' });
    await issuer.verify(access.token, 'access');
    const last = access.token.at(-2) === 'A' ? 'B' : 'A';
    const altered = `${access.token.slice(0, -2)}${last}${access.token.at(-1)}`;
    await expect(issuer.verify(altered, 'access')).rejects.toBeInstanceOf(InvalidTokenError);
  });
});
