// The site access rules of `#shared/tenancy/site-access.ts`, on hand-made standings.
import { describe, expect, it } from 'vitest';
import type { Principal } from '#shared/auth/principal.ts';
import {
  canAccessSite,
  effectiveSitePermissions,
  managesOrganization,
  managesSites,
  SITE_PERMISSIONS,
  type SiteStanding,
} from '#shared/tenancy/site-access.ts';

function principal(overrides: Partial<Principal> = {}): Principal {
  return {
    id: 7,
    uuid: '00000000-0000-4000-8000-000000000007',
    username: 'someone',
    email: 'someone@example.com',
    isStaff: false,
    isSuperuser: false,
    permissions: new Set(),
    tokenId: 'jti',
    tokenExpiresAt: new Date(0),
    ...overrides,
  };
}

const member = (overrides: Partial<NonNullable<SiteStanding['membership']>> = {}, sitePermissions: string[] = []): SiteStanding => ({
  membership: { isAdmin: false, isOwner: false, permissions: [], ...overrides },
  sitePermissions,
});
const all = [...SITE_PERMISSIONS].sort();

describe('site access', () => {
  it('gives superusers every site permission, member or not', () => {
    expect(effectiveSitePermissions(principal({ isSuperuser: true }), { sitePermissions: [] })).toEqual(all);
  });

  it('gives admins, owners and manage_organization holders of the organization every site permission', () => {
    expect(effectiveSitePermissions(principal(), member({ isAdmin: true }))).toEqual(all);
    expect(effectiveSitePermissions(principal(), member({ isOwner: true }))).toEqual(all);
    expect(managesOrganization(principal(), member({ permissions: ['manage_organization'] }))).toBe(true);
    expect(managesOrganization(principal({ permissions: new Set(['manage_organization']) }), member())).toBe(true);
  });

  it('needs membership for a global manage_organization or manage_sites to count', () => {
    const outsider: SiteStanding = { sitePermissions: [] };
    const holder = principal({ permissions: new Set(['manage_organization', 'manage_sites']) });

    expect(managesOrganization(holder, outsider)).toBe(false);
    expect(managesSites(holder, outsider)).toBe(false);
    expect(canAccessSite(holder, outsider)).toBe(false);
  });

  it('lets manage_sites holders manage sites without managing the organization', () => {
    const standing = member({ permissions: ['manage_sites'] });

    expect(managesOrganization(principal(), standing)).toBe(false);
    expect(managesSites(principal(), standing)).toBe(true);
  });

  it('gives nothing for site permissions or role grants whose holder is not a member of the organization', () => {
    const former: SiteStanding = { sitePermissions: ['admin_site', 'access_site'], appPermissions: ['manage_site'] };

    expect(effectiveSitePermissions(principal(), former)).toEqual([]);
    expect(canAccessSite(principal(), former)).toBe(false);
    expect(effectiveSitePermissions(principal({ isSuperuser: true }), former)).toEqual(all);
  });

  it('gives other members exactly their site permissions, admin_site implying all, and no access without any', () => {
    expect(effectiveSitePermissions(principal(), member({}, ['view_site', 'access_site']))).toEqual(['access_site', 'view_site']);
    expect(effectiveSitePermissions(principal(), member({}, ['admin_site']))).toEqual(all);
    expect(canAccessSite(principal(), member())).toBe(false);
  });
});
