// What a domain may look like. Hosts are stored lower-case without a trailing dot; the platform's
// own namespace (`<site-slug>.<PLATFORM_DOMAIN>`) is reserved: a site may only register names
// under its own slug there, so no site can take the host a future site will be given.
import { slugFrom } from '#shared/text/slugs.ts';

const LABEL_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** `Shop.Example.COM.` → `shop.example.com`. */
export function normalizeHost(input: string): string {
  return input.trim().toLowerCase().replace(/\.$/, '');
}

/** Why `host` cannot be a site's domain, or undefined when it can. */
export function domainProblem(host: string, site: { slug: string }, platformDomain: string): string | undefined {
  if (host === '') return 'This field may not be blank.';
  if (host.length > 253) return 'A domain has at most 253 characters.';
  const labels = host.split('.');
  if (labels.length < 2) return 'Enter a full host name such as shop.example.com.';
  const bad = labels.find((label) => !LABEL_PATTERN.test(label));
  if (bad !== undefined) {
    return 'Enter a valid host name: labels of 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen.';
  }
  if (labels.every((label) => /^\d+$/.test(label))) return 'Enter a host name, not an IP address.';
  const platform = normalizeHost(platformDomain);
  if (host === platform) return 'The platform domain cannot be a site domain.';
  const own = `${site.slug}.${platform}`;
  if (host.endsWith(`.${platform}`) && host !== own && !host.endsWith(`.${own}`)) {
    return `Names under ${platform} are reserved for each site's own address; this site may use ${own}.`;
  }
  return undefined;
}

/** The slug of a domain: its labels joined by hyphens (`shop.example.com` → `shop-example-com`). */
export async function domainSlugBase(host: string): Promise<string> {
  return (await slugFrom(host.replace(/\./g, ' '), 200)) || 'domain';
}

/** The host every new site gets as its primary domain. */
export function siteHost(siteSlug: string, platformDomain: string): string {
  return `${siteSlug}.${normalizeHost(platformDomain)}`;
}
