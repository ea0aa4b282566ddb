// One call of a webhook function: a POST of `{event, params, invocation_id}` signed with the
// function's secret (HMAC-SHA256 over `<timestamp>.<body>`, so a receiver can refuse replays), cut
// off at the function's timeout, its answer read up to a size cap, and redirects never followed.
// Where the call may go is checked on the addresses the name resolves to, at connect time (a name
// that resolves to a private address, or is changed to one between check and connect, is refused).
import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from '#shared/net/outbound-guard.ts';

export interface WebhookTarget {
  url: string;
  secret: string;
  timeoutMs: number;
}

export interface WebhookPayload {
  event: string;
  params: unknown;
  invocation_id: string;
}

export interface WebhookOutcome {
  ok: boolean;
  status?: number;
  /** Why the call failed, for the invocation record and the PRE event's error. */
  error?: string;
}

/** How names are resolved; node's own resolver unless a test hands in another. */
export type Resolve = (hostname: string, callback: (error: Error | null, addresses: LookupAddress[]) => void) => void;

export interface WebhookOptions {
  /** OUTBOUND_ALLOW_PRIVATE_NETWORKS: tests with a loopback receiver. */
  allowPrivate: boolean;
  resolve?: Resolve;
  maxResponseBytes?: number;
  now?: () => Date;
}

export const WEBHOOK_MAX_RESPONSE_BYTES = 64 * 1024;
const SIGNATURE_HEADER = 'x-tessera-signature';
const TIMESTAMP_HEADER = 'x-tessera-timestamp';

const systemResolve: Resolve = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: what a receiver recomputes. */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

class RefusedAddress extends Error {}

function guardedLookup(resolve: Resolve, allowPrivate: boolean): LookupFunction {
  return (
    hostname: string,
    options: LookupOptions,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, '');
      const refused = allowPrivate ? undefined : addresses.find((entry) => isPrivateAddress(entry.address));
      if (addresses.length === 0 || refused !== undefined) {
        return callback(
          new RefusedAddress(`"${hostname}" resolves to ${refused?.address ?? 'no address'}, which webhooks may not reach`),
          '',
        );
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** Throws when the URL itself (its scheme, or an address written in it) is refused before any lookup. */
export function assertWebhookUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedAddress('The webhook URL is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new RefusedAddress(`Webhook URLs use http or https, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '') throw new RefusedAddress('Webhook URLs carry no credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host))
    throw new RefusedAddress(`${host} is not a public address; webhooks may not reach it`);
  return url;
}

function readCapped(response: IncomingMessage, maxBytes: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        response.destroy();
        reject(new Error(`the answer is larger than ${maxBytes} bytes`));
      }
    });
    response.on('end', resolve);
    response.on('error', reject);
  });
}

export async function callWebhook(target: WebhookTarget, payload: WebhookPayload, options: WebhookOptions): Promise<WebhookOutcome> {
  let url: URL;
  try {
    url = assertWebhookUrl(target.url, options.allowPrivate);
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  const body = JSON.stringify(payload);
  const timestamp = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const maxBytes = options.maxResponseBytes ?? WEBHOOK_MAX_RESPONSE_BYTES;
  return new Promise<WebhookOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: WebhookOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent: false,
        lookup: guardedLookup(options.resolve ?? systemResolve, options.allowPrivate),
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Tessera-Webhooks/1',
          'x-tessera-event': payload.event,
          'x-tessera-invocation-id': payload.invocation_id,
          [TIMESTAMP_HEADER]: String(timestamp),
          [SIGNATURE_HEADER]: webhookSignature(target.secret, timestamp, body),
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          response.destroy();
          finish({ ok: false, status, error: `the webhook answered a redirect (${status}), which is not followed` });
          return;
        }
        readCapped(response, maxBytes).then(
          () =>
            finish(
              status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `the webhook answered HTTP ${status}` },
            ),
          (error: Error) => finish({ ok: false, status, error: error.message }),
        );
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, error: `the webhook did not answer within ${target.timeoutMs} ms` });
      outgoing.destroy();
    }, target.timeoutMs);
    outgoing.on('error', (error) =>
      finish({ ok: false, error: error instanceof RefusedAddress ? error.message : `the call failed: ${error.message}` }),
    );
    outgoing.end(body);
  });
}
