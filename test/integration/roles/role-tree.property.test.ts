// Property: whatever sequence of creates, moves and deletes (with or without their subtree) a
// client sends, an app's roles stay a tree (no cycle, every parent a role of the same app), and the
// API agrees with a model of what each operation should do, refusals included.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSite } from '#test/support/sites.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const NAMES = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'] as const;
type Name = (typeof NAMES)[number];

type Operation =
  | { kind: 'create'; name: Name; parent: Name | null }
  | { kind: 'move'; name: Name; parent: Name | null }
  | { kind: 'delete'; name: Name; removeChildren: boolean };

const name = fc.constantFrom(...NAMES);
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), name, parent: fc.option(name, { nil: null }) }),
  fc.record({ kind: fc.constant('move' as const), name, parent: fc.option(name, { nil: null }) }),
  fc.record({ kind: fc.constant('delete' as const), name, removeChildren: fc.boolean() }),
);

/** The model: each existing role's parent. */
type Model = Map<Name, Name | null>;

function descendants(model: Model, of: Name): Set<Name> {
  const found = new Set<Name>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const [role, parent] of model) {
      if (parent !== null && (parent === of || found.has(parent)) && !found.has(role)) {
        found.add(role);
        grew = true;
      }
    }
  }
  return found;
}

/** The status the API must answer, and the model after it. */
function expected(model: Model, op: Operation): number {
  if (op.kind === 'create') {
    // An unknown parent is bad input (400) before a taken name is a conflict (409).
    if (op.parent !== null && !model.has(op.parent)) return 400;
    if (model.has(op.name)) return 409;
    model.set(op.name, op.parent);
    return 201;
  }
  if (!model.has(op.name)) return 404;
  if (op.kind === 'move') {
    if (op.parent !== null && (!model.has(op.parent) || op.parent === op.name || descendants(model, op.name).has(op.parent))) return 400;
    model.set(op.name, op.parent);
    return 200;
  }
  const parent = model.get(op.name)!;
  if (op.removeChildren) for (const role of descendants(model, op.name)) model.delete(role);
  else for (const [role, roleParent] of model) if (roleParent === op.name) model.set(role, parent);
  model.delete(op.name);
  return 200;
}

describe('the app role hierarchy under random operations', () => {
  let app: TestApp;
  let token: string;
  let headers: Record<string, string>;
  let run = 0;

  beforeAll(async () => {
    app = await startTestApp();
    token = await app.adminToken();
    headers = (await createSite(app, token, 'Tree Site')).headers;
  });
  afterAll(async () => {
    await app.close();
  });

  it('stays a tree that matches the model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 16 }), async (operations) => {
        run += 1;
        const appSlug = `tree-${run}`;
        const created = await app.request('POST', '/api/apps/', { token, headers, body: { name: appSlug } });
        expect(created.status).toBe(201);
        const slugOf = (role: Name) => `${appSlug}-${role}`;
        const model: Model = new Map();
        for (const op of operations) {
          const status = expected(model, op);
          const parent = op.kind === 'delete' ? undefined : op.parent === null ? '' : slugOf(op.parent);
          const answer =
            op.kind === 'create'
              ? await app.request('POST', `/api/app/${appSlug}/roles`, {
                  token,
                  headers,
                  body: { name: op.name, parent_role_slug: parent },
                })
              : op.kind === 'move'
                ? await app.request('PUT', `/api/app/${appSlug}/roles/${slugOf(op.name)}`, {
                    token,
                    headers,
                    body: { parent_role_slug: parent },
                  })
                : await app.request('DELETE', `/api/app/${appSlug}/roles/${slugOf(op.name)}?remove_child_roles=${op.removeChildren}`, {
                    token,
                    headers,
                  });
          expect(answer.status, JSON.stringify(op)).toBe(status);
        }
        const list = await app.request('GET', `/api/app/${appSlug}/roles?page_size=100`, { token, headers });
        const roles = list.body.data as Array<{
          id: number;
          slug: string;
          parent_id: number | null;
          parent_role_slug: string | null;
          is_parent: boolean;
        }>;
        // The API's tree on its own: every parent is a listed role of this app, and walking up ends.
        const byId = new Map(roles.map((role) => [role.id, role]));
        for (const role of roles) {
          const seen = new Set<number>();
          for (let at: number | null = role.id; at !== null; at = byId.get(at)!.parent_id) {
            expect(byId.has(at)).toBe(true);
            expect(seen.has(at)).toBe(false);
            seen.add(at);
          }
          expect(role.is_parent).toBe(roles.some((other) => other.parent_id === role.id));
        }
        // And the model's.
        const fromApi = Object.fromEntries(roles.map((role) => [role.slug, role.parent_role_slug]));
        const fromModel = Object.fromEntries([...model].map(([role, parent]) => [slugOf(role), parent === null ? null : slugOf(parent)]));
        expect(fromApi).toEqual(fromModel);
      }),
      { numRuns: 25 },
    );
  });
});
