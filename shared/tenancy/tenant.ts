// The site a tenant request runs for. `schemaName` comes only from the site record: it is the one
// value that leads SQL into the tenant's schema.
export interface Tenant {
  siteId: number;
  uuid: string;
  slug: string;
  name: string;
  schemaName: string;
  organizationId: number;
  environment: string;
}
