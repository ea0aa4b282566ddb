// Who the provider says signed in, whatever the protocol (OpenID Connect claims, GitHub's API).
export interface ProviderIdentity {
  sub: string;
  email?: string;
  emailVerified: boolean;
  givenName: string;
  familyName: string;
  preferredUsername?: string;
}
