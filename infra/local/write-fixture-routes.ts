// `npm run fixtures`: rewrites every event fixture's `routeKey` and `pathParameters` from the route
// tables, as API Gateway would send them for the deployed routes. `--check` only reports the
// fixtures that are out of date (exit code 1), for CI and reviews.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { endpointGroups } from '#functions/groups.ts';
import { groupFixturesDir, listFixtures, readFixture } from './event-fixtures.ts';
import { deployedRouteFinder, withDeployedRoute } from './fixture-routes.ts';

const check = process.argv.includes('--check');
const routeOf = deployedRouteFinder(endpointGroups);
const stale: string[] = [];
for (const group of endpointGroups) {
  for (const name of await listFixtures(group.name)) {
    const file = path.join(groupFixturesDir(group.name), `${name}.json`);
    const event = await readFixture(file);
    const text = `${JSON.stringify(withDeployedRoute(event, routeOf(group.name, event.rawPath)), null, 2)}\n`;
    if (text === (await readFile(file, 'utf8'))) continue;
    stale.push(path.relative(process.cwd(), file));
    if (!check) await writeFile(file, text);
  }
}
console.log(
  stale.length === 0
    ? 'Every fixture carries its deployed route key and path parameters.'
    : `${check ? 'Out of date' : 'Rewrote'} ${stale.length} fixture(s):\n  ${stale.join('\n  ')}`,
);
process.exitCode = check && stale.length > 0 ? 1 : 0;
