// Groups handed out by an organization's admin belong to the membership: they grant their
// permissions inside that organization only, never platform-wide and never in another organization.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

describe('membership groups', () => {
  let app: TestApp;
  let powerGroupId: number;
  let ownerToken: string;

  beforeAll(async () => {
    app = await startTestApp();
    // A group a superuser made for platform staff: platform-wide user management plus inviting.
    const [group] = await app.runtime.db.rows<{ id: number }>(sql`
      with g as (insert into platform.groups (name) values ('staff-tools') returning id),
      p as (insert into platform.group_permissions (group_id, permission_id)
            select g.id, p.id from g, platform.permissions p where p.codename in ('change_user', 'view_user', 'invite_members'))
      select id from g`);
    powerGroupId = group!.id;
    await app.createUser('org-owner');
    await app.createUser('other-owner');
    await app.createUser('helper');
    ownerToken = (await app.login('org-owner', USER_PASSWORD)).access;
    const otherToken = (await app.login('other-owner', USER_PASSWORD)).access;
    expect((await app.request('POST', '/api/cloud/organizations/', { token: ownerToken, body: { name: 'Own Org' } })).status).toBe(201);
    expect((await app.request('POST', '/api/cloud/organizations/', { token: otherToken, body: { name: 'Other Org' } })).status).toBe(201);
    expect(
      (
        await app.request('POST', '/api/cloud/organizations/other-org/members/', {
          token: await app.adminToken(),
          body: { user_slug: 'helper' },
        })
      ).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await app.close();
  });

  it('does not let an organization admin grant themselves platform-wide permissions through a group', async () => {
    const put = await app.request('PUT', '/api/cloud/organizations/own-org/members/org-owner/', {
      token: ownerToken,
      body: { groups: [powerGroupId] },
    });
    expect(put.status).toBe(200);
    const fresh = (await app.login('org-owner', USER_PASSWORD)).access;
    const patchOther = await app.request('PATCH', '/api/cloud/users/helper/', { token: fresh, body: { first_name: 'Owned' } });
    expect([403, 404]).toContain(patchOther.status);
    const list = await app.request('GET', '/api/cloud/users/', { token: fresh });
    expect(list.body.results.map((user: { username: string }) => user.username)).toEqual(['org-owner']);
  });

  it('grants the group permissions inside that organization only', async () => {
    const ownToken = (await app.login('other-owner', USER_PASSWORD)).access;
    await app.request('POST', '/api/cloud/organizations/own-org/members/', {
      token: await app.adminToken(),
      body: { user_slug: 'helper', group_ids: [powerGroupId] },
    });
    const helperToken = (await app.login('helper', USER_PASSWORD)).access;
    const inOwn = await app.request('GET', '/api/cloud/organizations/own-org/privileges/', { token: helperToken });
    expect(inOwn.body.permissions).toContain('invite_members');
    const inOther = await app.request('GET', '/api/cloud/organizations/other-org/privileges/', { token: helperToken });
    expect(inOther.body.permissions).not.toContain('invite_members');
    const invite = await app.request('POST', '/api/cloud/organizations/other-org/invitations/', {
      token: helperToken,
      body: { invitee_identifier: 'nope@example.com' },
    });
    expect(invite.status).toBe(403);
    expect(ownToken).toBeTruthy();
  });

  it("replacing a member's groups leaves the user's global groups and other memberships alone", async () => {
    await app.runtime.db.run(sql`
      insert into platform.user_groups (user_id, group_id)
      select id, ${powerGroupId} from platform.users where username = 'helper'`);
    const put = await app.request('PUT', '/api/cloud/organizations/own-org/members/helper/', { token: ownerToken, body: { groups: [] } });
    expect(put.status).toBe(200);
    expect(put.body.groups ?? put.body.data?.groups).toEqual([]);
    const global = await app.runtime.db.rows(sql`
      select 1 from platform.user_groups ug join platform.users u on u.id = ug.user_id where u.username = 'helper'`);
    expect(global).toHaveLength(1);
  });

  it('shows membership groups in the user detail next to global ones', async () => {
    await app.request('PUT', '/api/cloud/organizations/own-org/members/helper/', { token: ownerToken, body: { groups: [powerGroupId] } });
    const detail = await app.request('GET', '/api/cloud/users/helper/', { token: await app.adminToken() });
    expect(detail.body.groups).toEqual([{ id: powerGroupId, name: 'staff-tools' }]);
  });
});
