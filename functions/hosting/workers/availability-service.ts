// check-subdomain-availability: whether a subdomain is free for this site's environment and, when it
// is not, up to five free alternatives in the spec's order of preference: two context-aware (the
// site's name, the year), two semantic suffixes, one meaningful number, then plain sequence numbers.
import type { HostingEnv } from '../hosting-env.ts';
import { domainHolders } from './worker-repository.ts';
import {
  RESERVED_SUBDOMAINS,
  domainChoice,
  environmentPrefix,
  fullDomainOf,
  subdomainFormatProblem,
  assertSubdomainFormat,
} from './subdomain-rules.ts';
import type { AvailabilityQuery } from './worker-schemas.ts';

type SuggestionReason = 'context-aware' | 'semantic' | 'smart-numeric' | 'fallback';

interface Suggestion {
  subdomain: string;
  full_domain: string;
  reason: SuggestionReason;
}

const MAX_SUGGESTIONS = 5;
const SEMANTIC_SUFFIXES = ['app', 'portal', 'hub', 'platform', 'workspace'];
const MEANINGFUL_NUMBERS = ['365', '360', '247', '101', '42'];
/** How many plain sequence numbers are tried before giving up on filling the list. */
const SEQUENCE_TRIES = 30;

/** `base-suffix`, the base shortened so the label (prefix included) stays a valid DNS label. */
function withSuffix(base: string, suffix: string, prefix: string): string {
  const room = 63 - prefix.length - suffix.length - 1;
  return `${base.slice(0, Math.max(room, 1)).replace(/-+$/, '')}-${suffix}`;
}

function candidatesOf(
  base: string,
  prefix: string,
  siteSlug: string,
  year: number,
): Array<{ subdomain: string; reason: SuggestionReason }> {
  const candidates: Array<{ subdomain: string; reason: SuggestionReason }> = [];
  const siteWord = siteSlug.split('-').filter(Boolean).slice(0, 2).join('-');
  for (const word of [siteWord, String(year)]) {
    if (word !== '' && word !== base) candidates.push({ subdomain: withSuffix(base, word, prefix), reason: 'context-aware' });
  }
  for (const word of SEMANTIC_SUFFIXES) candidates.push({ subdomain: withSuffix(base, word, prefix), reason: 'semantic' });
  for (const number of MEANINGFUL_NUMBERS) candidates.push({ subdomain: withSuffix(base, number, prefix), reason: 'smart-numeric' });
  for (let n = 2; n < 2 + SEQUENCE_TRIES; n += 1) candidates.push({ subdomain: withSuffix(base, String(n), prefix), reason: 'fallback' });
  return candidates;
}

/** Per reason, how many of the five places it may take before the later reasons get theirs. */
const QUOTA: Record<SuggestionReason, number> = { 'context-aware': 2, semantic: 2, 'smart-numeric': 1, fallback: MAX_SUGGESTIONS };

export async function checkAvailability(env: HostingEnv, query: AvailabilityQuery, now = new Date()) {
  const prefix = environmentPrefix(env.site.environment);
  assertSubdomainFormat(query.subdomain, prefix, 'subdomain');
  const choice = domainChoice(env.hosting, env.platformDomain, query.is_internal, query.domain);
  const fullDomain = fullDomainOf(prefix, query.subdomain, choice.domain);
  const isMine = (holder: { siteId?: number; workerSlug?: string }) =>
    query.exclude_slug !== undefined && holder.siteId === env.site.siteId && holder.workerSlug === query.exclude_slug;
  const base = { subdomain: query.subdomain, full_domain: fullDomain, domain: choice.domain, is_internal: choice.isInternal };

  const reserved = choice.isInternal && RESERVED_SUBDOMAINS.has(query.subdomain);
  const holder = reserved ? undefined : (await domainHolders(env.db, [fullDomain], env.platformDomain)).find((found) => !isMine(found));
  if (!reserved && holder === undefined) return { ...base, available: true, message: 'This subdomain is available.' };

  const candidates = candidatesOf(query.subdomain, prefix, env.site.slug, now.getUTCFullYear()).filter(
    (candidate) =>
      subdomainFormatProblem(candidate.subdomain, prefix) === undefined &&
      !(choice.isInternal && RESERVED_SUBDOMAINS.has(candidate.subdomain)),
  );
  const domainOf = (subdomain: string) => fullDomainOf(prefix, subdomain, choice.domain);
  const taken = new Set(
    (
      await domainHolders(
        env.db,
        candidates.map((candidate) => domainOf(candidate.subdomain)),
        env.platformDomain,
      )
    )
      .filter((found) => !isMine(found))
      .map((found) => found.fullDomain),
  );
  const suggestions: Suggestion[] = [];
  const used: Record<SuggestionReason, number> = { 'context-aware': 0, semantic: 0, 'smart-numeric': 0, fallback: 0 };
  for (const candidate of candidates) {
    if (suggestions.length === MAX_SUGGESTIONS) break;
    const full = domainOf(candidate.subdomain);
    if (
      taken.has(full) ||
      used[candidate.reason] >= QUOTA[candidate.reason] ||
      suggestions.some((known) => known.subdomain === candidate.subdomain)
    )
      continue;
    used[candidate.reason] += 1;
    suggestions.push({ subdomain: candidate.subdomain, full_domain: full, reason: candidate.reason });
  }
  // Another site's worker is not named: which names other tenants use is theirs to know.
  const conflict =
    holder?.siteId === env.site.siteId && holder.workerSlug !== undefined
      ? { conflicts_with: { worker_slug: holder.workerSlug, worker_name: holder.workerName } }
      : {};
  return {
    ...base,
    available: false,
    message: reserved ? 'This subdomain is reserved.' : 'This subdomain is already taken.',
    ...conflict,
    suggestions,
  };
}
