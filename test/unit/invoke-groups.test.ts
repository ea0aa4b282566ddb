// `npm run invoke` finds groups by their fixture folders and handlers by path, to avoid importing
// every route table; this keeps both conventions equal to the registry in functions/groups.ts.
import { describe, expect, it } from 'vitest';
import { endpointGroups } from '#functions/groups.ts';
import { groupEntry, invokableGroups, loadGroupHandler } from '#infra/local/invoke-groups.ts';

describe('invoke groups', () => {
  it('are exactly the endpoint groups, each with its entry at functions/<group>/handler.ts', async () => {
    expect(await invokableGroups()).toEqual(endpointGroups.map((group) => group.name).sort());
    for (const group of endpointGroups) expect(groupEntry(group.name)).toBe(group.entry);
  });

  it('loads the handler the registry loads', async () => {
    const auth = endpointGroups.find((group) => group.name === 'auth')!;
    expect(await loadGroupHandler('auth')).toBe(await auth.loadHandler());
  });

  it('refuses a name that is not a group, including paths', async () => {
    for (const name of ['nope', '../migrate', 'auth/../../functions/migrate', '__proto__']) {
      await expect(loadGroupHandler(name)).rejects.toThrow(/Not an endpoint group/);
    }
  });
});
