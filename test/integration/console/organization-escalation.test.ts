// The two privilege escalations of the organization probe, played through the API: an admin or a
// manage_organization holder granting themselves delete_organization (or demoting the owner) and
// deleting the organization; an invite_members holder handing out admin_site on a site they cannot
// even see through an invitation. Each step must be refused with nothing changed, while the owner
// and superusers keep every power.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

describe('organization privilege escalation', () => {
  let app: TestApp;
  let superuser: string;
  const tokens: Record<string, string> = {};

  const orgPath = (org: string) => `/api/cloud/organizations/${org}/`;
  const memberPath = (org: string, username: string) => `/api/cloud/organizations/${org}/members/${username}/`;
  const db = () => app.runtime.db;

  async function membership(org: string, username: string) {
    const [row] = await db().rows<{ is_admin: boolean; is_owner: boolean; permissions: string[] }>(sql`
      select m.is_admin, m.is_owner, m.permissions from platform.organization_members m
      join platform.organizations o on o.id = m.organization_id join platform.users u on u.id = m.user_id
      where o.slug = ${org} and u.username = ${username}`);
    return row;
  }

  async function organizationExists(org: string): Promise<boolean> {
    return (await db().rows(sql`select 1 from platform.organizations where slug = ${org}`)).length === 1;
  }

  /** An organization owned by `owner` with the members given, added by the superuser with their permissions. */
  async function organization(name: string, owner: string, members: Record<string, string[]>): Promise<string> {
    const created = await app.request('POST', '/api/cloud/organizations/', { token: tokens[owner], body: { name } });
    expect(created.status).toBe(201);
    const slug = created.body.data.slug as string;
    for (const [username, permissions] of Object.entries(members)) {
      const added = await app.request('POST', `${orgPath(slug)}members/`, { token: superuser, body: { user_slug: username, permissions } });
      expect(added.status).toBe(201);
    }
    return slug;
  }

  async function privileges(org: string, username: string): Promise<string[]> {
    const answer = await app.request('GET', `${orgPath(org)}privileges/`, { token: tokens[username] });
    expect(answer.status).toBe(200);
    return answer.body.permissions as string[];
  }

  function expectRefused(answer: { status: number; body: unknown }, status: number, code: string): void {
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ status: 'error', code, message: expect.any(String) });
  }

  beforeAll(async () => {
    app = await startTestApp();
    superuser = await app.adminToken();
    for (const name of ['carol', 'dave', 'alice', 'erin', 'bob', 'bob2', 'frank']) {
      await app.createUser(name);
      tokens[name] = await app.tokenOf(name);
    }
  });
  afterAll(async () => {
    await app.close();
  });

  describe('an admin made by the owner', () => {
    let org: string;

    beforeAll(async () => {
      org = await organization('Carol Org', 'carol', { dave: [], alice: [] });
      expect((await app.request('POST', `${memberPath(org, 'dave')}make_admin/`, { token: tokens.carol })).status).toBe(200);
    });

    it('is not shown delete_organization and may not delete: the privileges and the DELETE agree', async () => {
      // Act
      const shown = await privileges(org, 'dave');
      const deleted = await app.request('DELETE', orgPath(org), { token: tokens.dave });
      // Assess
      expect(shown).not.toContain('delete_organization');
      expect(shown).toEqual(expect.arrayContaining(['change_organization', 'invite_members', 'manage_organization', 'manage_sites']));
      expectRefused(deleted, 403, 'PERMISSION_DENIED');
      expect(await organizationExists(org)).toBe(true);
    });

    it('may not grant himself delete_organization, nor change his own membership at all', async () => {
      // Act
      const self = await app.request('PUT', memberPath(org, 'dave'), {
        token: tokens.dave,
        body: { permissions: ['delete_organization'] },
      });
      const selfHarmless = await app.request('PUT', memberPath(org, 'dave'), {
        token: tokens.dave,
        body: { permissions: ['invite_members'] },
      });
      const deleted = await app.request('DELETE', orgPath(org), { token: tokens.dave });
      // Assess
      expectRefused(self, 403, 'PERMISSION_DENIED');
      expectRefused(selfHarmless, 403, 'PERMISSION_DENIED');
      expectRefused(deleted, 403, 'PERMISSION_DENIED');
      expect(await membership(org, 'dave')).toEqual({ is_admin: true, is_owner: false, permissions: [] });
      expect(await organizationExists(org)).toBe(true);
      expect((await app.request('GET', orgPath(org), { token: tokens.carol })).status).toBe(200);
    });

    it('may not grant delete_organization to another member', async () => {
      // Act
      const put = await app.request('PUT', memberPath(org, 'alice'), {
        token: tokens.dave,
        body: { permissions: ['delete_organization'] },
      });
      // Assess
      expectRefused(put, 403, 'PERMISSION_DENIED');
      expect((await membership(org, 'alice'))!.permissions).toEqual([]);
    });

    it("may not demote, remove or change the owner's membership", async () => {
      // Act
      const demote = await app.request('POST', `${memberPath(org, 'carol')}remove_admin/`, { token: tokens.dave });
      const demoteByPut = await app.request('PUT', memberPath(org, 'carol'), { token: tokens.dave, body: { is_admin: false } });
      const change = await app.request('PUT', memberPath(org, 'carol'), {
        token: tokens.dave,
        body: { permissions: ['view_organization'] },
      });
      const remove = await app.request('DELETE', memberPath(org, 'carol'), { token: tokens.dave });
      // Assess
      expectRefused(demote, 422, 'BUSINESS_LOGIC_ERROR');
      expectRefused(demoteByPut, 422, 'BUSINESS_LOGIC_ERROR');
      expectRefused(change, 403, 'PERMISSION_DENIED');
      expectRefused(remove, 422, 'BUSINESS_LOGIC_ERROR');
      expect(await membership(org, 'carol')).toEqual({ is_admin: true, is_owner: true, permissions: [] });
    });
  });

  describe('a manage_organization holder', () => {
    let org: string;

    beforeAll(async () => {
      org = await organization('Erin Org', 'erin', { alice: ['manage_organization'], bob: [] });
    });

    it('may not make herself admin, grant herself more, or demote the owner', async () => {
      // Act
      const selfAdmin = await app.request('POST', `${memberPath(org, 'ALICE')}make_admin/`, { token: tokens.alice });
      const selfAdminLower = await app.request('POST', `${memberPath(org, 'alice')}make_admin/`, { token: tokens.alice });
      const selfPut = await app.request('PUT', memberPath(org, 'alice'), {
        token: tokens.alice,
        body: { permissions: ['manage_organization', 'delete_organization'] },
      });
      const demoteOwner = await app.request('POST', `${memberPath(org, 'erin')}remove_admin/`, { token: tokens.alice });
      const deleted = await app.request('DELETE', orgPath(org), { token: tokens.alice });
      // Assess
      expect([403, 404]).toContain(selfAdmin.status);
      expectRefused(selfAdminLower, 403, 'PERMISSION_DENIED');
      expectRefused(selfPut, 403, 'PERMISSION_DENIED');
      expectRefused(demoteOwner, 422, 'BUSINESS_LOGIC_ERROR');
      expectRefused(deleted, 403, 'PERMISSION_DENIED');
      expect(await membership(org, 'alice')).toEqual({ is_admin: false, is_owner: false, permissions: ['manage_organization'] });
      expect(await membership(org, 'erin')).toEqual({ is_admin: true, is_owner: true, permissions: [] });
      expect(await organizationExists(org)).toBe(true);
    });

    it('may not hand delete_organization to an accomplice, directly or by invitation', async () => {
      // Act
      const put = await app.request('PUT', memberPath(org, 'bob'), { token: tokens.alice, body: { permissions: ['delete_organization'] } });
      const invite = await app.request('POST', `${orgPath(org)}invitations/`, {
        token: tokens.alice,
        body: { invitee_identifier: 'frank@example.com', permissions: ['delete_organization'] },
      });
      // Assess
      expectRefused(put, 403, 'PERMISSION_DENIED');
      expectRefused(invite, 403, 'PERMISSION_DENIED');
      expect((await membership(org, 'bob'))!.permissions).toEqual([]);
      const [invitations] = await db().rows<{ n: number }>(sql`
        select count(*)::int as n from platform.invitations i join platform.organizations o on o.id = i.organization_id where o.slug = ${org}`);
      expect(invitations!.n).toBe(0);
    });
  });

  describe('the owner and superusers', () => {
    it('the owner grants delete_organization; its holder then sees it and deletes', async () => {
      // Prepare
      const org = await organization('Owner Grants', 'carol', { dave: [] });
      // Act
      const granted = await app.request('PUT', memberPath(org, 'dave'), {
        token: tokens.carol,
        body: { permissions: ['delete_organization'] },
      });
      const shown = await privileges(org, 'dave');
      const deleted = await app.request('DELETE', orgPath(org), { token: tokens.dave });
      // Assess
      expect(granted.status).toBe(200);
      expect(shown).toContain('delete_organization');
      expect(deleted.status).toBe(204);
      expect(await organizationExists(org)).toBe(false);
    });

    it('a superuser makes admins, grants delete_organization and demotes, and the owner sees and deletes', async () => {
      // Prepare
      const org = await organization('Super Grants', 'erin', { bob: [] });
      // Act
      const made = await app.request('POST', `${memberPath(org, 'bob')}make_admin/`, { token: superuser });
      const granted = await app.request('PUT', memberPath(org, 'bob'), {
        token: superuser,
        body: { permissions: ['delete_organization'] },
      });
      const shown = await privileges(org, 'bob');
      const demoted = await app.request('POST', `${memberPath(org, 'bob')}remove_admin/`, { token: superuser });
      const ownerDemoted = await app.request('POST', `${memberPath(org, 'erin')}remove_admin/`, { token: superuser });
      const ownerShown = await privileges(org, 'erin');
      const deleted = await app.request('DELETE', orgPath(org), { token: tokens.erin });
      // Assess
      expect(made.status).toBe(200);
      expect(granted.status).toBe(200);
      expect(shown).toContain('delete_organization');
      expect(demoted.status).toBe(200);
      expectRefused(ownerDemoted, 422, 'BUSINESS_LOGIC_ERROR');
      expect(ownerShown).toContain('delete_organization');
      expect(deleted.status).toBe(204);
    });

    it('the owner makes and removes admins and the admin makes others admin', async () => {
      // Prepare
      const org = await organization('Owner Admins', 'carol', { dave: [], alice: [] });
      // Act
      const made = await app.request('POST', `${memberPath(org, 'dave')}make_admin/`, { token: tokens.carol });
      const byAdmin = await app.request('POST', `${memberPath(org, 'alice')}make_admin/`, { token: tokens.dave });
      const removed = await app.request('POST', `${memberPath(org, 'dave')}remove_admin/`, { token: tokens.carol });
      // Assess
      expect(made.status).toBe(200);
      expect(byAdmin.status).toBe(200);
      expect(removed.status).toBe(200);
      expect((await membership(org, 'alice'))!.is_admin).toBe(true);
      expect((await membership(org, 'dave'))!.is_admin).toBe(false);
    });
  });

  describe('site grants in an invitation', () => {
    let org: string;
    const invitations = () => `${orgPath(org)}invitations/`;
    const siteInvitation = (email: string) => ({
      invitee_identifier: email,
      invitation_config: { site: [{ slug: 'alice-shop', permissions: ['admin_site'] }] },
    });

    async function sitePermissionsOf(username: string): Promise<string[]> {
      const rows = await db().rows<{ codename: string }>(sql`
        select p.codename from platform.site_user_permissions sup join platform.sites s on s.id = sup.site_id
        join platform.permissions p on p.id = sup.permission_id join platform.users u on u.id = sup.user_id
        where s.slug = 'alice-shop' and u.username = ${username} order by p.codename`);
      return rows.map((row) => row.codename);
    }

    async function accept(uuid: string, username: string) {
      return app.request('POST', `/api/cloud/invitations/${uuid}/accept/`, { token: tokens[username] });
    }

    beforeAll(async () => {
      org = await organization('Alice Org', 'alice', { dave: ['invite_members'] });
      const site = await app.request('POST', `${orgPath(org)}sites/`, { token: tokens.alice, body: { name: 'Alice Shop' } });
      expect(site.status).toBe(201);
    });

    it('refuses an invite_members holder without access to the site with 403 and leaves no invitation', async () => {
      // Prepare
      expect((await app.request('GET', '/api/cloud/sites/alice-shop/privileges/', { token: tokens.dave })).status).toBe(404);
      // Act
      const answer = await app.request('POST', invitations(), { token: tokens.dave, body: siteInvitation('bob2@example.com') });
      // Assess
      expectRefused(answer, 403, 'PERMISSION_DENIED');
      const rows = await db().rows(sql`select 1 from platform.invitations where invitee_identifier = 'bob2@example.com'`);
      expect(rows).toHaveLength(0);
    });

    it('skips site grants at acceptance when the inviter lost the right to give them', async () => {
      // Prepare: dave may manage the site's users and holds what he invites with, invites, then loses both
      const given = await app.request('POST', '/api/cloud/sites/alice-shop/users/', {
        token: tokens.alice,
        body: { users: [{ username: 'dave', permissions: ['manage_site_users', 'admin_site'] }] },
      });
      expect(given.status).toBeLessThan(300);
      const invited = await app.request('POST', invitations(), { token: tokens.dave, body: siteInvitation('bob2@example.com') });
      expect(invited.status).toBe(201);
      const revoked = await app.request('DELETE', '/api/cloud/sites/alice-shop/users/', { token: tokens.alice, body: { users: ['dave'] } });
      expect(revoked.status).toBeLessThan(300);
      // Act
      const accepted = await accept(invited.body.uuid, 'bob2');
      // Assess: bob2 joined, without the site permission
      expect(accepted.status).toBe(200);
      expect(await membership(org, 'bob2')).toBeDefined();
      expect(await sitePermissionsOf('bob2')).toEqual([]);
    });

    it('lets the owner and a superuser invite with admin_site, which the invitee then holds', async () => {
      // Act
      const byOwner = await app.request('POST', invitations(), { token: tokens.alice, body: siteInvitation('frank@example.com') });
      const bySuperuser = await app.request('POST', invitations(), { token: superuser, body: siteInvitation('erin@example.com') });
      const frank = await accept(byOwner.body.uuid, 'frank');
      const erin = await accept(bySuperuser.body.uuid, 'erin');
      // Assess
      expect(byOwner.status).toBe(201);
      expect(bySuperuser.status).toBe(201);
      expect(frank.status).toBe(200);
      expect(erin.status).toBe(200);
      expect(await sitePermissionsOf('frank')).toEqual(['admin_site']);
      expect(await sitePermissionsOf('erin')).toEqual(['admin_site']);
    });
  });
});
