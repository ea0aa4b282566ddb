// Fills the `{{...}}` placeholders of an event fixture, so fixtures can carry fresh tokens, the local
// superuser password and unique names without anyone pasting secrets into committed files.
import { randomBytes, randomUUID } from 'node:crypto';
import { FixtureError } from './event-fixtures.ts';

/** Where the values that depend on the local data come from. */
export interface PlaceholderSource {
  accessToken(username: string): Promise<string>;
  refreshToken(username: string): Promise<string>;
  /** The password of the named user; locally only the superuser's is known. */
  password(username: string): Promise<string>;
}

const PLACEHOLDER = /\{\{\s*([a-z]+)(?::([^{}]*?))?\s*\}\}/g;

export const PLACEHOLDER_HELP = [
  '{{token:<username>}}    a fresh access token for that user',
  '{{refresh:<username>}}  a fresh refresh token for that user',
  '{{password:admin}}      the superuser password (ADMIN_PASSWORD or <DATA_DIR>/admin-password.txt)',
  '{{uuid}}                a random UUID',
  '{{unique}}              a short random suffix, e.g. for usernames',
];

function argumentOf(name: string, argument: string | undefined): string {
  if (argument === undefined || argument.trim() === '') {
    throw new FixtureError(`Placeholder {{${name}}} needs a username: {{${name}:<username>}}`);
  }
  return argument.trim();
}

async function placeholderValue(source: PlaceholderSource, name: string, argument: string | undefined): Promise<string> {
  switch (name) {
    case 'token':
      return source.accessToken(argumentOf(name, argument));
    case 'refresh':
      return source.refreshToken(argumentOf(name, argument));
    case 'password':
      return source.password(argumentOf(name, argument));
    case 'uuid':
      return randomUUID();
    case 'unique':
      return randomBytes(4).toString('hex');
    default:
      throw new FixtureError(
        `Unknown placeholder {{${name}${argument === undefined ? '' : `:${argument}`}}}. Known:\n  ${PLACEHOLDER_HELP.join('\n  ')}`,
      );
  }
}

function collect(value: unknown, found: Set<string>): void {
  if (typeof value === 'string') {
    for (const match of value.matchAll(PLACEHOLDER)) found.add(match[0]);
  } else if (Array.isArray(value)) {
    for (const item of value) collect(item, found);
  } else if (value !== null && typeof value === 'object') {
    for (const member of Object.values(value)) collect(member, found);
  }
}

function substitute(text: string, values: Map<string, string>, escaped: (value: string) => string): string {
  return text.replace(PLACEHOLDER, (whole) => escaped(values.get(whole)!));
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const asJsonStringContent = (value: string): string => JSON.stringify(value).slice(1, -1);
const verbatim = (value: string): string => value;

function fill(value: unknown, values: Map<string, string>, key: string | undefined, depth: number): unknown {
  if (typeof value === 'string') {
    // Inside a JSON body a placeholder sits in a string literal, so its value is escaped for one
    // (a password with a quote must not break the body).
    const escaped = depth === 1 && key === 'body' && isJson(value) ? asJsonStringContent : verbatim;
    return substitute(value, values, escaped);
  }
  if (Array.isArray(value)) return value.map((item) => fill(item, values, undefined, depth + 1));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, fill(member, values, name, depth + 1)]));
  }
  return value;
}

/**
 * A copy of `event` with every placeholder replaced. Each distinct placeholder is resolved once, so
 * `user-{{unique}}` and `user-{{unique}}@example.com` in one fixture name the same user.
 */
export async function fillPlaceholders<T>(event: T, source: PlaceholderSource): Promise<T> {
  const found = new Set<string>();
  collect(event, found);
  const values = new Map<string, string>();
  for (const placeholder of found) {
    const [, name, argument] = new RegExp(PLACEHOLDER.source).exec(placeholder)!;
    values.set(placeholder, await placeholderValue(source, name!, argument));
  }
  return fill(event, values, undefined, 0) as T;
}
