// The API Gateway event fixtures of `npm run invoke`: where they live, how a name on the command
// line finds one, and the check that a file really is an HTTP API (payload v2) event.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as z from 'zod';

/** `events-fixtures/` at the repository root, whatever the working directory. */
export const FIXTURES_ROOT = fileURLToPath(new URL('../../events-fixtures/', import.meta.url));

/** A fixture that cannot be found or read; the message is meant for the person at the terminal. */
export class FixtureError extends Error {
  override readonly name = 'FixtureError';
}

// Only what the handlers and the CLI rely on is checked; every other member passes through untouched.
const gatewayEventShape = z.looseObject({
  version: z.literal('2.0'),
  routeKey: z.string(),
  rawPath: z.string().startsWith('/'),
  rawQueryString: z.string(),
  headers: z.record(z.string(), z.string()),
  queryStringParameters: z.record(z.string(), z.string()).optional(),
  requestContext: z.looseObject({
    requestId: z.string(),
    http: z.looseObject({ method: z.string().min(1), path: z.string(), sourceIp: z.string() }),
  }),
  body: z.string().optional(),
  isBase64Encoded: z.boolean(),
});

export function groupFixturesDir(group: string): string {
  return path.join(FIXTURES_ROOT, group);
}

/** The fixture names of a group (file names without `.json`), sorted; empty when it has none. */
export async function listFixtures(group: string): Promise<string[]> {
  const entries = await readdir(groupFixturesDir(group)).catch(() => [] as string[]);
  return entries
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .sort();
}

async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined))?.isFile() ?? false;
}

/**
 * The file a command-line reference names: a fixture of the group (with or without `.json`), or a
 * path, relative to `cwd`, to any event file.
 */
export async function resolveFixture(group: string, reference: string, cwd: string): Promise<string> {
  const name = reference.endsWith('.json') ? reference : `${reference}.json`;
  const inGroup = path.join(groupFixturesDir(group), name);
  if (!reference.includes('/') && !reference.includes(path.sep) && (await isFile(inGroup))) return inGroup;
  const asPath = path.resolve(cwd, reference);
  if (await isFile(asPath)) return asPath;
  const available = await listFixtures(group);
  throw new FixtureError(
    `No fixture "${reference}" for group "${group}" (looked in ${path.relative(cwd, groupFixturesDir(group)) || '.'}/ and at ${asPath}).\n` +
      (available.length > 0 ? `Fixtures of ${group}:\n  ${available.join('\n  ')}` : `Group ${group} has no fixtures yet.`),
  );
}

/** Parses a fixture file and checks that it is an API Gateway HTTP API v2 proxy event. */
export async function readFixture(file: string): Promise<APIGatewayProxyEventV2> {
  const text = await readFile(file, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new FixtureError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  const checked = gatewayEventShape.safeParse(parsed);
  if (!checked.success) {
    const problems = checked.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new FixtureError(`${file} is not an API Gateway HTTP API v2 event:\n  ${problems.join('\n  ')}`);
  }
  // The parsed JSON itself, not zod's copy, so nothing of the fixture is lost or reshaped.
  return parsed as APIGatewayProxyEventV2;
}
