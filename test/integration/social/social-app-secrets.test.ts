// Social app secrets at rest: sealed with the secrets key (never stored in clear), bound to their
// app and scope, masked on every read, and rows stored in clear before sealing existed are sealed at
// start-up without changing what they open to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { SealedValue } from '#shared/crypto/secret-box.ts';
import { loadSecretsKey } from '#shared/crypto/secrets-key.ts';
import { sealLegacySocialSecrets } from '#shared/social/seal-legacy-social-secrets.ts';
import { openSocialSecret } from '#shared/social/social-app-secret.ts';
import { createSite } from '#test/support/sites.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const SECRET = 'very-secret-client-secret-42';
const body = (name: string) => ({ provider: 'google', provider_id: name, name, client_id: `${name}-client`, secret: SECRET });

describe('social app secrets at rest', () => {
  let app: TestApp;
  let admin: string;
  let site: Awaited<ReturnType<typeof createSite>>;
  let schema: string;
  const key = () => loadSecretsKey(app.runtime.config);
  const platformRow = async (id: number) =>
    (
      await app.runtime.db.rows<{ id: number; secret: string; secret_sealed: SealedValue | string | null }>(
        sql`select id, secret, secret_sealed from platform.social_apps where id = ${id}`,
      )
    )[0]!;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createSite(app, admin, 'Sealed Site');
    const [row] = await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`);
    schema = row!.schema_name;
  });
  afterAll(async () => {
    await app.close();
  });

  it('stores only the sealed secret, echoes it once on create and masks it afterwards', async () => {
    const created = await app.request('POST', '/api/auth/social-apps/', { token: admin, body: body('sealed') });
    expect(created.status).toBe(201);
    expect(created.body.data.secret).toBe(SECRET);
    const row = await platformRow(created.body.data.id);
    expect(row.secret).toBe('');
    expect(JSON.stringify(row.secret_sealed)).not.toContain(SECRET);
    expect(openSocialSecret(await key(), 'platform', row)).toBe(SECRET);
    const detail = await app.request('GET', `/api/auth/social-apps/${row.id}/`, { token: admin });
    expect(detail.body.secret).toBe('***HIDDEN***');
    expect(detail.body.is_configured).toBe(true);
    const changed = await app.request('PATCH', `/api/auth/social-apps/${row.id}/`, { token: admin, body: { secret: 'rotated-secret' } });
    expect(changed.body.data.secret).toBe('***HIDDEN***');
    expect(openSocialSecret(await key(), 'platform', await platformRow(row.id))).toBe('rotated-secret');
  });

  it('binds a sealed secret to its app: copied onto another app it does not open', async () => {
    const first = (await app.request('POST', '/api/auth/social-apps/', { token: admin, body: body('first') })).body.data.id as number;
    const second = (await app.request('POST', '/api/auth/social-apps/', { token: admin, body: body('second') })).body.data.id as number;
    const stolen = (await platformRow(first)).secret_sealed;
    expect(() => openSocialSecret(Buffer.alloc(32), 'platform', { id: first, secret: '', secret_sealed: stolen })).toThrow();
    expect(() => openSocialSecret(Buffer.alloc(0, 0), 'platform', { id: first, secret: '', secret_sealed: stolen })).toThrow();
    const key32 = await key();
    expect(() => openSocialSecret(key32, 'platform', { id: second, secret: '', secret_sealed: stolen })).toThrow();
    expect(() => openSocialSecret(key32, { siteId: 1 }, { id: first, secret: '', secret_sealed: stolen })).toThrow();
  });

  it('seals rows stored in clear, in the platform and in every site, once', async () => {
    await app.runtime.db.run(sql`insert into platform.social_apps (provider, provider_id, name, client_id, secret)
      values ('google', 'legacy', 'Legacy', 'legacy-client', 'legacy-plain-secret')`);
    await app.runtime.db.run(sql`insert into ${sql.identifier(schema)}.social_apps (provider, provider_id, name, client_id, secret)
      values ('google', 'legacy', 'Legacy', 'legacy-client', 'site-plain-secret')`);
    const legacy = await app.runtime.db.rows<{ id: number }>(sql`select id from platform.social_apps where provider_id = 'legacy'`);
    const beforeSealing = await app.request('GET', `/api/auth/social-apps/${legacy[0]!.id}/`, { token: admin });
    expect(beforeSealing.body).toMatchObject({ secret: '***HIDDEN***', is_configured: true });
    expect(await sealLegacySocialSecrets(app.runtime.db, key)).toBe(2);
    expect(await sealLegacySocialSecrets(app.runtime.db, key)).toBe(0);
    const platform = await platformRow(legacy[0]!.id);
    expect(platform.secret).toBe('');
    expect(openSocialSecret(await key(), 'platform', platform)).toBe('legacy-plain-secret');
    const [siteRow] = await app.runtime.db.rows<{ id: number; secret: string; secret_sealed: SealedValue | null }>(
      sql`select id, secret, secret_sealed from ${sql.identifier(schema)}.social_apps where provider_id = 'legacy'`,
    );
    expect(siteRow!.secret).toBe('');
    const [siteRecord] = await app.runtime.db.rows<{ id: number }>(sql`select id from platform.sites where slug = ${site.slug}`);
    expect(openSocialSecret(await key(), { siteId: Number(siteRecord!.id) }, siteRow!)).toBe('site-plain-secret');
    const plaintextLeft = await app.runtime.db.rows(sql`select id from platform.social_apps where secret <> ''`);
    expect(plaintextLeft).toEqual([]);
  });
});
