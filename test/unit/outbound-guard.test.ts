// Outbound calls to user-supplied URLs refuse private, loopback and link-local addresses unless
// configuration allows them (DESIGN §5).
import { describe, expect, it } from 'vitest';
import { assertOutboundAllowed, isPrivateAddress } from '#shared/net/outbound-guard.ts';

describe('the outbound guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
  ])('counts %s as private', (address) => expect(isPrivateAddress(address)).toBe(true));

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111'])('counts %s as public', (address) =>
    expect(isPrivateAddress(address)).toBe(false),
  );

  it('refuses loopback, metadata and private hosts unless allowed', async () => {
    for (const url of [
      'http://127.0.0.1:8080/.well-known/openid-configuration',
      'http://169.254.169.254/latest/',
      'http://[::1]/',
      'http://localhost/',
    ]) {
      await expect(assertOutboundAllowed(new URL(url), false), url).rejects.toMatchObject({ status: 400 });
      await expect(assertOutboundAllowed(new URL(url), true), url).resolves.toBeUndefined();
    }
  });

  it('refuses schemes other than http and https even when private networks are allowed', async () => {
    await expect(assertOutboundAllowed(new URL('file:///etc/passwd'), true)).rejects.toMatchObject({ status: 400 });
  });
});
