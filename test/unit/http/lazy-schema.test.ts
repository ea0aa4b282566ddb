// Route schemas are built on first use, not when the route tables load: a cold start builds the
// input schemas of the route it answers only, and no response schema (a deployed function never
// reads them).
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { endpointGroups } from '#functions/groups.ts';
import { lazySchema } from '#shared/http/lazy-schema.ts';

/** Ids of the schemas registered with `.meta({ id })` so far: each is registered when it is built. */
function registeredIds(): Set<string> {
  // `_idmap` is declared on zod's registry type; no other call lists what is registered.
  return new Set(z.globalRegistry._idmap.keys());
}

describe('lazySchema', () => {
  it('builds on the first call only and answers the same instance after', () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds += 1;
      return z.strictObject({ id: z.number() });
    });
    expect(builds).toBe(0);
    const first = schema();
    expect(schema()).toBe(first);
    expect(builds).toBe(1);
  });
});

describe('route response schemas', () => {
  const routes = endpointGroups.flatMap((group) => group.routes);

  it('are not built when the route tables load, and each is built once when asked for', () => {
    const beforeAsking = registeredIds();
    const declared = routes.filter((route) => route.response !== undefined);
    expect(declared.length).toBeGreaterThan(100);
    const built = declared.map((route) => route.response!());
    const builtOnAsking = [...registeredIds()].filter((id) => !beforeAsking.has(id));
    // Components of the answers of every group (datatables, apps, sites, buckets, groups, users).
    expect(builtOnAsking).toEqual(expect.arrayContaining(['Datatable', 'App', 'Site', 'Bucket', 'Group', 'User']));
    for (const [index, route] of declared.entries()) expect(route.response!()).toBe(built[index]);
  });

  it('input schemas are functions too, each building its schema once', () => {
    const inputs = routes.flatMap((route) => [route.params, route.query, route.body].filter((schema) => schema !== undefined));
    expect(inputs.length).toBeGreaterThan(200);
    for (const schema of inputs) expect(schema()).toBe(schema());
  });
});
