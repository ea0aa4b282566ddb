import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTokenRevoked, purgeExpiredRevocations, revokeToken } from '#shared/auth/revoked-tokens.ts';
import { createTestDatabase, testDriver, type TestDatabase } from '#test/support/test-database.ts';

describe(`revoked tokens on ${testDriver}`, () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await test.dispose();
  });

  const claims = (tokenId: string, expiresAt: Date) =>
    ({ subject: 'x', tokenId, type: 'refresh', issuedAt: new Date(), expiresAt }) as const;

  it('revokes a token once and reports a second revocation', async () => {
    const token = claims('11111111-1111-4111-8111-111111111111', new Date(Date.now() + 60_000));
    expect(await revokeToken(test.db, token, null)).toBe(true);
    expect(await revokeToken(test.db, token, null)).toBe(false);
    expect(await isTokenRevoked(test.db, token.tokenId)).toBe(true);
  });

  it('purges only revocations of tokens that have expired', async () => {
    await revokeToken(test.db, claims('22222222-2222-4222-8222-222222222222', new Date(Date.now() - 1000)), null);
    const purged = await purgeExpiredRevocations(test.db);
    expect(purged).toBe(1);
    const left = await test.db.rows<{ n: number }>(sql`select count(*)::int as n from platform.revoked_tokens`);
    expect(left[0]!.n).toBe(1);
  });
});
