// The API's own URLs in answers (an object's `file_url`, an upload's `complete_url`), built from
// configuration (PUBLIC_API_URL) and the site record, never from the request's Host header: a
// client that sends `Host: evil.example` must not get links to evil.example back.
import type { Config } from '#shared/config.ts';

/** `https://<slug>.example.com` for a site; the template's `{site}` filled with the slug. */
export function sitePublicOrigin(config: Pick<Config, 'publicApiUrl'>, siteSlug: string): string {
  return config.publicApiUrl.replaceAll('{site}', siteSlug);
}
