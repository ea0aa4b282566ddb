// The authenticated caller as handlers see it: identity, flags and effective permissions (direct
// and through groups). Superusers hold every permission.
export interface Principal {
  id: number;
  uuid: string;
  username: string;
  email: string;
  isStaff: boolean;
  isSuperuser: boolean;
  permissions: ReadonlySet<string>;
  /** The `jti` of the access token that authenticated this request. */
  tokenId: string;
  tokenExpiresAt: Date;
}

export function hasPermission(principal: Principal, codename: string): boolean {
  return principal.isSuperuser || principal.permissions.has(codename);
}
