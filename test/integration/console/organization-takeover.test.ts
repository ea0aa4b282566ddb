// The account-takeover chain of issue 12, played through the API as an attacker would: create an
// organization as a plain user, add strangers directly by id or username, read their emails from
// the answers, delete the organization so the cascade disables them. Each step must fail, and the
// allowed ways in (superuser or staff adding, an admin of a shared organization adding, an
// invitation the user accepts) must keep working.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

describe('organization account-takeover chain', () => {
  let app: TestApp;
  let admin: string;
  let mallory: string;
  const people: Record<string, { id: number; uuid: string; username: string }> = {};

  const membersOf = (org: string) => `/api/cloud/organizations/${org}/members/`;
  const db = () => app.runtime.db;

  async function createOrganization(token: string, name: string): Promise<string> {
    const created = await app.request('POST', '/api/cloud/organizations/', { token, body: { name } });
    expect(created.status).toBe(201);
    return created.body.data.slug as string;
  }

  async function isDeleted(username: string): Promise<boolean> {
    const [row] = await db().rows<{ is_deleted: boolean }>(sql`select is_deleted from platform.users where username = ${username}`);
    return row!.is_deleted;
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    for (const name of ['mallory', 'victim-one', 'victim-two', 'shared-admin', 'shared-member', 'plain-member', 'legacy-member']) {
      people[name] = await app.createUser(name);
    }
    people.staffer = await app.createUser('staffer', { is_staff: true });
    people['staff-victim'] = await app.createUser('staff-victim', { is_staff: true });
    mallory = await app.tokenOf('mallory');
    // A home of her own, so deleting her traps never soft-deletes mallory herself.
    await createOrganization(mallory, 'Mallory Home');
  });
  afterAll(async () => {
    await app.close();
  });

  describe('a plain user adding strangers directly', () => {
    let trap: string;
    let notFound: unknown;

    beforeAll(async () => {
      trap = await createOrganization(mallory, 'Trap');
      const answer = await app.request('POST', membersOf(trap), { token: mallory, body: { user_id: 999_999 } });
      expect(answer.status).toBe(404);
      notFound = answer.body;
    });

    it('gets the 404 of a nonexistent user for a stranger named by id, username or uuid', async () => {
      // Prepare
      const victim = people['victim-one']!;
      const bodies = [
        { user_id: victim.id },
        { user_id: victim.username },
        { user_slug: victim.username },
        { user_slug: victim.uuid },
        { user_slug: 'staffer' },
        { user_slug: 'admin' },
        { user_slug: 'no-such-user' },
      ];
      for (const body of bodies) {
        // Act
        const answer = await app.request('POST', membersOf(trap), { token: mallory, body });
        // Assess: indistinguishable from a user who does not exist
        expect(answer.status, JSON.stringify(body)).toBe(404);
        expect(answer.body, JSON.stringify(body)).toEqual(notFound);
      }
      const rows = await db().rows(sql`
        select 1 from platform.organization_members m join platform.organizations o on o.id = m.organization_id
        where o.slug = ${trap} and m.user_id <> ${people.mallory!.id}`);
      expect(rows).toHaveLength(0);
    });

    it('gets a 400 on user_id for an id beyond the integer range, never a 500', async () => {
      const answer = await app.request('POST', membersOf(trap), { token: mallory, body: { user_id: 1e12 } });
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body.errors)).toEqual(['user_id']);
    });

    it('learns no username or email by looping over user ids', async () => {
      // Prepare
      const [max] = await db().rows<{ id: number }>(sql`select max(id)::int as id from platform.users`);
      const secrets = await db().rows<{ username: string; email: string }>(
        sql`select username, email from platform.users where username <> 'mallory'`,
      );
      // Act
      const texts: string[] = [];
      for (let id = 1; id <= max!.id + 3; id += 1) {
        const answer = await app.request('POST', membersOf(trap), { token: mallory, body: { user_id: id } });
        if (id === people.mallory!.id) {
          expect(answer.status).toBe(409);
          continue;
        }
        expect(answer.status, `user id ${id}`).toBe(404);
        expect(answer.body, `user id ${id}`).toEqual(notFound);
        texts.push(JSON.stringify(answer.body));
      }
      const list = await app.request('GET', membersOf(trap), { token: mallory });
      texts.push(JSON.stringify(list.body));
      // Assess
      expect(list.body.results.map((member: { username: string }) => member.username)).toEqual(['mallory']);
      const seen = texts.join('\n');
      for (const secret of secrets) {
        expect(seen).not.toContain(secret.email);
        expect(seen).not.toContain(`"${secret.username}"`);
      }
    });

    it('leaves strangers signed in and able to sign in after the organization is deleted', async () => {
      // Prepare
      const before = await app.login('victim-one', USER_PASSWORD);
      const staffBefore = await app.login('staff-victim', USER_PASSWORD);
      // Act
      const deleted = await app.request('DELETE', `/api/cloud/organizations/${trap}/`, { token: mallory });
      // Assess
      expect(deleted.status).toBe(204);
      expect(await isDeleted('victim-one')).toBe(false);
      expect(await isDeleted('staff-victim')).toBe(false);
      expect((await app.request('GET', '/api/profile/', { token: before.access })).status).toBe(200);
      expect((await app.request('GET', '/api/profile/', { token: staffBefore.access })).status).toBe(200);
      expect((await app.request('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: before.refresh } })).status).toBe(200);
      await app.login('victim-one', USER_PASSWORD);
      await app.login('staff-victim', USER_PASSWORD);
    });
  });

  describe('the delete cascade', () => {
    it('never soft-deletes a member whose membership predates its recorded origin, nor staff or superusers', async () => {
      // Prepare: a membership written before origins were recorded, and staff added by a superuser
      const org = await createOrganization(mallory, 'Old Trap');
      await db().run(sql`
        insert into platform.organization_members (organization_id, user_id)
        select o.id, u.id from platform.organizations o, platform.users u where o.slug = ${org} and u.username = 'legacy-member'`);
      for (const username of ['staff-victim', 'admin']) {
        const added = await app.request('POST', membersOf(org), { token: admin, body: { user_slug: username } });
        expect(added.status).toBe(201);
      }
      const legacy = await app.login('legacy-member', USER_PASSWORD);
      // Act
      const deleted = await app.request('DELETE', `/api/cloud/organizations/${org}/`, { token: mallory });
      // Assess
      expect(deleted.status).toBe(204);
      expect(await isDeleted('legacy-member')).toBe(false);
      expect(await isDeleted('staff-victim')).toBe(false);
      expect(await isDeleted('admin')).toBe(false);
      expect((await app.request('GET', '/api/profile/', { token: legacy.access })).status).toBe(200);
    });

    it('still soft-deletes, as the spec says, a member the owner added with authority and who is in no other organization', async () => {
      // Prepare: victim-two joins through the superuser, who holds authority over everyone
      const org = await createOrganization(await app.tokenOf('plain-member'), 'Legit');
      const added = await app.request('POST', membersOf(org), { token: admin, body: { user_slug: 'victim-two' } });
      expect(added.status).toBe(201);
      const [origin] = await db().rows<{ joined_via: string }>(sql`
        select m.joined_via from platform.organization_members m join platform.users u on u.id = m.user_id
        where u.username = 'victim-two'`);
      expect(origin!.joined_via).toBe('authorised');
      // Act
      const deleted = await app.request('DELETE', `/api/cloud/organizations/${org}/`, { token: admin });
      // Assess
      expect(deleted.status).toBe(204);
      expect(await isDeleted('victim-two')).toBe(true);
      await app.request('POST', `/api/cloud/users/victim-two/restore/`, { token: admin });
      await app.request('POST', `/api/cloud/users/plain-member/restore/`, { token: admin });
    });
  });

  describe('the allowed ways in', () => {
    let shared: string;
    let second: string;

    beforeAll(async () => {
      shared = await createOrganization(await app.tokenOf('shared-admin'), 'Shared');
      second = await createOrganization(await app.tokenOf('shared-admin'), 'Second');
    });

    it('lets a superuser and a staff user add anyone, with the email in the answer', async () => {
      const bySuperuser = await app.request('POST', membersOf(shared), { token: admin, body: { user_slug: 'shared-member' } });
      expect(bySuperuser.status).toBe(201);
      expect(bySuperuser.body).toMatchObject({ username: 'shared-member', email: 'shared-member@example.com' });
      const byStaff = await app.request('POST', membersOf(shared), {
        token: await app.tokenOf('staffer'),
        body: { user_id: people['plain-member']!.id },
      });
      // Staff holds authority over the user, but must also manage the organization.
      expect(byStaff.status).toBe(404);
      const staffOrg = await createOrganization(await app.tokenOf('staffer'), 'Staff Org');
      const addedByStaff = await app.request('POST', membersOf(staffOrg), {
        token: await app.tokenOf('staffer'),
        body: { user_id: people['plain-member']!.id },
      });
      expect(addedByStaff.status).toBe(201);
      expect(addedByStaff.body).toMatchObject({ username: 'plain-member', email: 'plain-member@example.com' });
    });

    it('lets an admin of an organization the user belongs to add them to another organization', async () => {
      // Act
      const answer = await app.request('POST', membersOf(second), {
        token: await app.tokenOf('shared-admin'),
        body: { user_slug: 'shared-member' },
      });
      // Assess
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ username: 'shared-member', email: 'shared-member@example.com' });
    });

    it('shows other members’ emails to admins only, and lets plain members search names but not emails', async () => {
      // Prepare: plain-member joins Shared too (by the superuser)
      expect((await app.request('POST', membersOf(shared), { token: admin, body: { user_slug: 'plain-member' } })).status).toBe(201);
      const plain = await app.tokenOf('plain-member');
      // Act
      const asPlain = await app.request('GET', membersOf(shared), { token: plain });
      const asAdmin = await app.request('GET', membersOf(shared), { token: await app.tokenOf('shared-admin') });
      const detail = await app.request('GET', `${membersOf(shared)}shared-admin/`, { token: plain });
      const byEmail = await app.request('GET', `${membersOf(shared)}?search=shared-admin@`, { token: plain });
      const byEmailAsAdmin = await app.request('GET', `${membersOf(shared)}?search=plain-member@`, {
        token: await app.tokenOf('shared-admin'),
      });
      // Assess
      const emails = (body: { results: Array<{ username: string; email: string | null }> }) =>
        Object.fromEntries(body.results.map((member) => [member.username, member.email]));
      expect(emails(asPlain.body)).toEqual({
        'plain-member': 'plain-member@example.com',
        'shared-admin': null,
        'shared-member': null,
      });
      expect(emails(asAdmin.body)).toEqual({
        'plain-member': 'plain-member@example.com',
        'shared-admin': 'shared-admin@example.com',
        'shared-member': 'shared-member@example.com',
      });
      expect(detail.status).toBe(200);
      expect(detail.body.email).toBeNull();
      expect(byEmail.body.results).toEqual([]);
      expect(byEmailAsAdmin.body.results.map((member: { username: string }) => member.username)).toEqual(['plain-member']);
    });

    it('lets anyone invite a stranger, who joins by accepting', async () => {
      // Prepare
      const org = await createOrganization(mallory, 'Invites');
      const invited = await app.request('POST', `/api/cloud/organizations/${org}/invitations/`, {
        token: mallory,
        body: { invitee_identifier: 'victim-one@example.com' },
      });
      expect(invited.status).toBe(201);
      // Act
      const accepted = await app.request('POST', `/api/cloud/invitations/${invited.body.uuid}/accept/`, {
        token: await app.tokenOf('victim-one'),
        body: {},
      });
      // Assess
      expect(accepted.status).toBe(200);
      const list = await app.request('GET', membersOf(org), { token: mallory });
      expect(list.body.results.map((member: { username: string }) => member.username)).toEqual(['mallory', 'victim-one']);
      const [origin] = await db().rows<{ joined_via: string }>(sql`
        select m.joined_via from platform.organization_members m
        join platform.users u on u.id = m.user_id join platform.organizations o on o.id = m.organization_id
        where u.username = 'victim-one' and o.slug = ${org}`);
      expect(origin!.joined_via).toBe('invitation');
    });
  });
});
