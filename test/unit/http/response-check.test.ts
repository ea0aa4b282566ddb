// The test-time response check: a handler's data that does not match its route's declared schema
// fails loudly, in every form a handler may return it (plain data, a page, an Outcome, a reply).
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { outcome, paged } from '#shared/http/answers.ts';
import { reply } from '#shared/http/reply.ts';
import { checkDeclaredResponse } from '#shared/http/response-check.ts';
import { type AnyRoute, defineRoute } from '#shared/http/route.ts';

const route: AnyRoute = defineRoute({
  method: 'GET',
  path: '/api/things/',
  summary: 'Things',
  access: 'public',
  host: 'any',
  envelope: 'A',
  response: () => z.strictObject({ id: z.number().int() }),
  handler: async () => ({ id: 1 }),
});

const page = { page: 1, pageSize: 10, count: 'exact' } as never;
const total = { value: 1, estimated: false, more: false };

describe('checkDeclaredResponse', () => {
  it('is on in the test suite', () => {
    expect(process.env.VALIDATE_RESPONSES).toBe('1');
  });

  it('accepts data of the declared shape in each form', () => {
    expect(() => checkDeclaredResponse(route, { id: 1 })).not.toThrow();
    expect(() => checkDeclaredResponse(route, paged([{ id: 1 }, { id: 2 }], total, page))).not.toThrow();
    expect(() => checkDeclaredResponse(route, outcome({ id: 1 }, { status: 201 }))).not.toThrow();
    expect(() => checkDeclaredResponse(route, reply(200, { id: 1 }))).not.toThrow();
  });

  it('fails loudly, naming the route and the field, on a mismatch', () => {
    expect(() => checkDeclaredResponse(route, { id: 'one' })).toThrow(/GET \/api\/things\/ does not match its declared schema: id:/);
    expect(() => checkDeclaredResponse(route, { id: 1, secret: 'x' })).toThrow(/declared schema/);
    expect(() => checkDeclaredResponse(route, paged([{ id: 1 }, { id: 2.5 }], total, page))).toThrow(/id:/);
    expect(() => checkDeclaredResponse(route, outcome({}, {}))).toThrow(/declared schema/);
    expect(() => checkDeclaredResponse(route, reply(200, null))).toThrow(/declared schema/);
  });

  it('leaves routes without a declared response and bodiless replies alone', () => {
    const { response: _, ...undeclared } = route;
    expect(() => checkDeclaredResponse(undeclared as AnyRoute, { anything: true })).not.toThrow();
    expect(() => checkDeclaredResponse(route, reply(304))).not.toThrow();
  });
});
