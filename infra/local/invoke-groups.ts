// The endpoint groups as `npm run invoke` sees them, without importing every group's route table
// (functions/groups.ts costs about a second of CPU, most of a CLI run): a group is a folder of
// events-fixtures/ and its Lambda entry is functions/<group>/handler.ts. test/unit/
// invoke-groups.test.ts keeps both conventions equal to functions/groups.ts.
import { readdir } from 'node:fs/promises';
import type { ApiHandler } from '#shared/http/http-handler.ts';
import { FIXTURES_ROOT } from './event-fixtures.ts';

/** Names of the groups that have fixtures, sorted. */
export async function invokableGroups(): Promise<string[]> {
  const entries = await readdir(FIXTURES_ROOT, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Where the Lambda entry of a group lives, relative to the repository root. */
export const groupEntry = (group: string): string => `functions/${group}/handler.ts`;

/** Imports one group's handler (and so only its own route table). `group` must be one of `invokableGroups()`. */
export async function loadGroupHandler(group: string): Promise<ApiHandler> {
  if (!(await invokableGroups()).includes(group)) throw new Error(`Not an endpoint group: ${group}`);
  const module = (await import(`../../${groupEntry(group)}`)) as { handler: ApiHandler };
  return module.handler;
}
