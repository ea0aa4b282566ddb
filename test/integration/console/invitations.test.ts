import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTenantSchema } from '#shared/db/tenant-schemas.ts';
import { FakeClock } from '#test/support/fake-clock.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

describe('invitations API', () => {
  let app: TestApp;
  let owner: string;
  const ORG = 'guild';
  const invitations = `/api/cloud/organizations/${ORG}/invitations/`;
  let groupId: number;
  let site: { uuid: string };
  const clock = new FakeClock();
  const DAY_MS = 86_400_000;

  const outbox = () => path.join(app.runtime.config.dataDir, 'outbox');

  async function mailsTo(address: string): Promise<OutboxMail[]> {
    const names = (await readdir(outbox()).catch(() => [] as string[])).sort();
    const mails = await Promise.all(names.map(async (name) => JSON.parse(await readFile(path.join(outbox(), name), 'utf8')) as OutboxMail));
    return mails.filter((mail) => mail.to === address);
  }

  function tokenFrom(mail: OutboxMail): string {
    const match = /http:\/\/console\.example\.test\/invitations\/([0-9a-f-]{36})/.exec(mail.text);
    if (match === null) throw new Error(`no accept link in ${mail.text}`);
    return match[1]!;
  }

  /** A new organization of the owner's, for a test that counts its invitations; its invitations URL. */
  async function ownOrganization(name: string): Promise<string> {
    const created = await app.request('POST', '/api/cloud/organizations/', { token: owner, body: { name } });
    expect(created.status).toBe(201);
    return `/api/cloud/organizations/${created.body.data.slug}/invitations/`;
  }

  async function invite(body: Record<string, unknown>, where = invitations): Promise<string> {
    const answer = await app.request('POST', where, { token: owner, body });
    if (answer.status !== 201) throw new Error(`invite failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.uuid as string;
  }

  beforeAll(async () => {
    app = await startTestApp({ CONSOLE_URL: 'http://console.example.test/' }, { now: clock.now });
    await app.createUser('guild-owner');
    await app.createUser('guild-member');
    await app.createUser('guild-inviter');
    await app.createUser('existing', { email: 'existing@example.com' });
    await app.createUser('stranger');
    owner = await app.tokenOf('guild-owner');
    await app.request('POST', '/api/cloud/organizations/', { token: owner, body: { name: 'Guild' } });
    await app.request('POST', `/api/cloud/organizations/${ORG}/members/`, {
      token: await app.adminToken(),
      body: { user_slug: 'guild-member' },
    });
    await app.request('POST', `/api/cloud/organizations/${ORG}/members/`, {
      token: await app.adminToken(),
      body: { user_slug: 'guild-inviter' },
    });
    await createTenantSchema(app.runtime.db, 't_guild_hall');
    const [siteRow] = await app.runtime.db.rows<{ uuid: string }>(sql`
      insert into platform.sites (organization_id, slug, name, schema_name)
      select id, 'guild-hall', 'Guild Hall', 't_guild_hall' from platform.organizations where slug = ${ORG}
      returning uuid::text as uuid`);
    site = siteRow!;
    const [group] = await app.runtime.db.rows<{ id: number }>(sql`insert into platform.groups (name) values ('crafters') returning id`);
    groupId = group!.id;
  });
  afterEach(() => {
    clock.reset();
  });
  afterAll(async () => {
    await app.close();
  });

  it('runs the round trip: invite, mail in the outbox, public details, accept as a new account, second accept refused', async () => {
    // Prepare and act: the invitation
    const created = await app.request('POST', invitations, {
      token: owner,
      body: {
        invitee_identifier: 'Newcomer@Example.com',
        permissions: ['invite_members'],
        invitation_config: { group: ['crafters'], site: [{ slug: 'guild-hall', permissions: ['access_site', 'view_site'] }] },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      invitee_identifier: 'newcomer@example.com',
      organization: { slug: ORG, name: 'Guild' },
      invited_by: 'guild-owner',
      permissions: ['invite_members'],
      invitation_config: { group: ['crafters'], site: [{ slug: 'guild-hall', permissions: ['access_site', 'view_site'] }] },
      status: 'pending',
      accepted_at: null,
    });
    const days = (Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)) / 86_400_000;
    expect(days).toBeCloseTo(7, 3);

    // The mail: one file in the outbox with the accept link
    const mails = await mailsTo('newcomer@example.com');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain('Guild');
    const token = tokenFrom(mails[0]!);
    expect(token).toBe(created.body.uuid);

    // Public details, no token
    const details = await app.request('GET', `/api/cloud/invitations/${token}/details/`);
    expect(details.status).toBe(200);
    expect(details.body).toMatchObject({ uuid: token, status: 'pending', organization: { slug: ORG }, invitee_has_account: false });

    // Accept as an unknown invitee
    const accepted = await app.request('POST', `/api/cloud/invitations/${token}/accept/`, {
      body: { username: 'newcomer', password: 'newcomer-password-1' },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({
      invitation: { status: 'accepted' },
      user: { username: 'newcomer', email: 'newcomer@example.com' },
    });
    expect(accepted.body.invitation.accepted_at).not.toBeNull();

    // A member with the configured groups and site permissions, able to sign in
    const login = await app.login('newcomer', 'newcomer-password-1');
    const member = await app.request('GET', `/api/cloud/organizations/${ORG}/members/newcomer/`, { token: login.access });
    expect(member.status).toBe(200);
    expect(member.body).toMatchObject({
      is_admin: false,
      permissions: ['invite_members'],
      groups: [{ id: groupId, name: 'crafters' }],
      sites: [{ uuid: site.uuid, name: 'Guild Hall', permissions: ['access_site', 'view_site'] }],
    });
    const [row] = await app.runtime.db.rows<{ status: string; accepted: boolean }>(
      sql`select status, accepted_at is not null as accepted from platform.invitations where uuid = ${token}`,
    );
    expect(row).toEqual({ status: 'accepted', accepted: true });

    // Second accept refused
    const again = await app.request('POST', `/api/cloud/invitations/${token}/accept/`, {
      body: { username: 'newcomer-2', password: 'newcomer-password-1' },
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: 'error', code: 'CONFLICT', invitation_status: 'accepted' });
    const [users] = await app.runtime.db.rows<{ n: number }>(
      sql`select count(*)::int as n from platform.users where username = 'newcomer-2'`,
    );
    expect(users!.n).toBe(0);
  });

  it('lets an existing user accept with their own bearer token and an empty body', async () => {
    const token = await invite({ invitee_identifier: 'existing@example.com', invitation_config: { group: [groupId] } });
    const details = await app.request('GET', `/api/invitations/${token}/details/`);
    expect(details.body.invitee_has_account).toBe(true);

    const withoutToken = await app.request('POST', `/api/cloud/invitations/${token}/accept/`, {
      body: { username: 'x-existing', password: 'whatever-passphrase-9' },
    });
    expect(withoutToken.status).toBe(401);
    const wrongUser = await app.request('POST', `/api/cloud/invitations/${token}/accept/`, { token: await app.tokenOf('stranger') });
    expect(wrongUser.status).toBe(403);

    const accepted = await app.request('POST', `/api/cloud/invitations/${token}/accept/`, { token: await app.tokenOf('existing') });
    expect(accepted.status).toBe(200);
    expect(accepted.body.user.username).toBe('existing');
    const member = await app.request('GET', `/api/cloud/organizations/${ORG}/members/existing/`, { token: owner });
    expect(member.status).toBe(200);
    expect(member.body.groups).toEqual([{ id: groupId, name: 'crafters' }]);
  });

  it('refuses a cancelled invitation', async () => {
    const token = await invite({ invitee_identifier: 'cancelled@example.com' });
    const cancelled = await app.request('DELETE', `${invitations}${token}/`, { token: owner });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const accept = await app.request('POST', `/api/cloud/invitations/${token}/accept/`, {
      body: { username: 'cancelled', password: 'late-joiner-passphrase' },
    });
    expect(accept.status).toBe(409);
    expect(accept.body.invitation_status).toBe('cancelled');
    const resend = await app.request('POST', `${invitations}${token}/resend/`, { token: owner });
    expect(resend.status).toBe(409);
  });

  it('reports an invitation past its expiry as expired and refuses it; resend extends it and mails again', async () => {
    // An organization of its own, so the expired list holds this invitation only.
    const lateInvitations = await ownOrganization('Latecomers');
    const token = await invite({ invitee_identifier: 'late@example.com' }, lateInvitations);
    clock.advance(app.runtime.config.invitationTtlDays * DAY_MS + 60_000);

    const details = await app.request('GET', `/api/cloud/invitations/${token}/details/`);
    expect(details.body.status).toBe('expired');
    const accept = await app.request('POST', `/api/cloud/invitations/${token}/accept/`, {
      body: { username: 'late', password: 'late-joiner-passphrase' },
    });
    expect(accept.status).toBe(409);
    expect(accept.body.invitation_status).toBe('expired');
    const listed = await app.request('GET', `${lateInvitations}?status=expired`, { token: owner });
    expect(listed.body.results.map((item: { uuid: string }) => item.uuid)).toEqual([token]);

    const resent = await app.request('POST', `${lateInvitations}${token}/resend/`, { token: owner });
    expect(resent.status).toBe(200);
    expect(resent.body.status).toBe('pending');
    expect(Date.parse(resent.body.expires_at)).toBeGreaterThan(clock.now().getTime() + 6 * DAY_MS);
    expect(await mailsTo('late@example.com')).toHaveLength(2);
    const acceptedNow = await app.request('POST', `/api/cloud/invitations/${token}/accept/`, {
      body: { username: 'late', password: 'late-joiner-passphrase' },
    });
    expect(acceptedNow.status).toBe(200);
  });

  it('lists invitations in Envelope C and shows one by UUID to managers', async () => {
    const listedInvitations = await ownOrganization('Listing');
    const tokens = [
      await invite({ invitee_identifier: 'first-listed@example.com' }, listedInvitations),
      await invite({ invitee_identifier: 'second-listed@example.com' }, listedInvitations),
    ];
    const listed = await app.request('GET', listedInvitations, { token: owner });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ count: 2, next: null, previous: null });
    expect(listed.body.results.map((item: { uuid: string }) => item.uuid).sort()).toEqual([...tokens].sort());
    const token = tokens[0]!;
    const detail = await app.request('GET', `/api/organizations/listing/invitations/${token}/`, { token: owner });
    expect(detail.status).toBe(200);
    expect(detail.body.uuid).toBe(token);
  });

  it('refuses plain members with 403 and outsiders with 404', async () => {
    const member = await app.tokenOf('guild-member');
    expect((await app.request('GET', invitations, { token: member })).status).toBe(403);
    expect((await app.request('POST', invitations, { token: member, body: { invitee_identifier: 'x@example.com' } })).status).toBe(403);
    const outsider = await app.tokenOf('stranger');
    expect((await app.request('GET', invitations, { token: outsider })).status).toBe(404);
  });

  it('lets an invite_members holder invite without granting more than they hold', async () => {
    await app.request('PUT', `/api/cloud/organizations/${ORG}/members/guild-inviter/`, {
      token: owner,
      body: { permissions: ['invite_members'] },
    });
    const inviter = await app.tokenOf('guild-inviter');
    const plain = await app.request('POST', invitations, { token: inviter, body: { invitee_identifier: 'friend@example.com' } });
    expect(plain.status).toBe(201);
    const escalating = await app.request('POST', invitations, {
      token: inviter,
      body: { invitee_identifier: 'friend2@example.com', permissions: ['manage_organization'] },
    });
    expect(escalating.status).toBe(403);
  });

  it('answers 400 naming the field for a bad email, unknown permission, group or foreign site', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ invitee_identifier: 'not-an-email' }, 'invitee_identifier'],
      [{ invitee_identifier: 'a@example.com', permissions: ['be_god'] }, 'permissions.0'],
      [{ invitee_identifier: 'a@example.com', invitation_config: { group: ['no-such-group'] } }, 'invitation_config.group'],
      [{ invitee_identifier: 'a@example.com', invitation_config: { site: [{ slug: 'elsewhere' }] } }, 'invitation_config.site'],
      [
        { invitee_identifier: 'a@example.com', invitation_config: { site: [{ slug: 'guild-hall', permissions: ['x'] }] } },
        'invitation_config.site',
      ],
      [{ invitee_identifier: 'guild-member@example.com' }, 'invitee_identifier'],
    ];
    for (const [body, field] of cases) {
      const answer = await app.request('POST', invitations, { token: owner, body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(answer.body.errors)).toEqual([field]);
    }
    expect(await mailsTo('a@example.com')).toEqual([]);
  });

  it('answers 404 for an unknown or malformed token and 400 for a bad accept body', async () => {
    expect((await app.request('GET', '/api/cloud/invitations/00000000-0000-4000-8000-000000000000/details/')).status).toBe(404);
    expect((await app.request('GET', '/api/cloud/invitations/not-a-token/details/')).status).toBe(404);
    expect((await app.request('POST', '/api/cloud/invitations/not-a-token/accept/', { body: {} })).status).toBe(404);
    const token = await invite({ invitee_identifier: 'fresh@example.com' });
    const missing = await app.request('POST', `/api/cloud/invitations/${token}/accept/`, { body: {} });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.errors).sort()).toEqual(['password', 'username']);
    const taken = await app.request('POST', `/api/cloud/invitations/${token}/accept/`, {
      body: { username: 'stranger', password: 'late-joiner-passphrase' },
    });
    expect(taken.status).toBe(400);
    expect(Object.keys(taken.body.errors)).toEqual(['username']);
    const short = await app.request('POST', `/api/cloud/invitations/${token}/accept/`, { body: { username: 'fresh', password: 'short' } });
    expect(short.status).toBe(400);
    const [row] = await app.runtime.db.rows<{ status: string }>(sql`select status from platform.invitations where uuid = ${token}`);
    expect(row!.status).toBe('pending');
  });
});
