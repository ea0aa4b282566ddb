// Outbound calls to user-supplied URLs (OpenID discovery and the provider's endpoints; webhooks
// later) refuse private, loopback and link-local addresses unless configuration allows them
// (DESIGN §5): a provider URL must not become a way to reach the VPC or the metadata service.
// Every request is checked as it is sent, so redirects and later endpoints are held to it too.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { BadRequestError } from '#shared/errors.ts';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  // An IPv4-mapped IPv6 address is judged by its IPv4 address (a ::ffff:0:0/96 rule in BlockList
  // would match every IPv4 address too).
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return isPrivateAddress(mapped[1]!);
  if (/^::ffff:/i.test(address)) return true;
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Throws 400 when the URL is not http(s) or its host resolves to a refused address. */
export async function assertOutboundAllowed(url: URL, allowPrivate: boolean): Promise<void> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new BadRequestError(`Outbound URL scheme "${url.protocol}" is not allowed.`);
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) !== 0 ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((entry) => entry.address);
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    throw new BadRequestError(`Outbound calls to "${url.hostname}" are not allowed: it is not a public address.`);
  }
}

/** A fetch that holds every request to the rule above. */
export function guardedFetch(allowPrivate: boolean): (url: string, init: RequestInit) => Promise<Response> {
  return async (url, init) => {
    await assertOutboundAllowed(new URL(url), allowPrivate);
    return fetch(url, { ...init, redirect: 'manual' });
  };
}
