// The route table is the one source of an answer's shape: every route of every group is walked, and
// every kind of result a handler can return is rendered through the chain's own `routeReply`. An
// answer either has the shape the route declares or is refused as a bug; and no group builds an
// envelope itself, which is the one way an answer could escape its declaration.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { endpointGroups } from '#functions/groups.ts';
import { Outcome, outcome, paged, routeReply } from '#shared/http/answers.ts';
import { HttpReply, JsonText, noContent, reply } from '#shared/http/reply.ts';
import { RequestContext } from '#shared/http/request-context.ts';
import type { AnyRoute, EnvelopeKind } from '#shared/http/route.ts';
import { systemLog } from '#shared/logger.ts';
import type { Runtime } from '#shared/runtime/runtime.ts';

const routes = endpointGroups.flatMap((group) => group.routes.map((route) => [group.name, route.method, route.path, route] as const));

/** Rendering reads only the request (Envelope C's links), never the runtime's ports. */
function contextFor(route: AnyRoute): RequestContext {
  const request = {
    method: route.method,
    path: '/api/things/',
    host: 'api.example.test',
    origin: 'https://api.example.test',
    rawQuery: 'page=2&page_size=1',
    headers: {},
    sourceIp: '192.0.2.1',
  };
  return new RequestContext('request-1', {} as Runtime, request, systemLog);
}

const item = { id: 7, name: 'seven' };
const page = { page: 2, pageSize: 1 };

const envelopeA = z.strictObject({ status: z.literal('success'), message: z.string().min(1), data: z.unknown() });
const pageA = envelopeA.extend({
  data: z.array(z.unknown()),
  total: z.number(),
  pagination: z.strictObject({ page: z.number(), page_size: z.number(), has_next: z.boolean(), has_previous: z.boolean() }),
});
const envelopeB = z.strictObject({
  success: z.boolean(),
  message: z.string().min(1),
  status_code: z.number(),
  data: z.unknown().optional(),
  total: z.number().optional(),
});
const pageB = z.strictObject({
  success: z.literal(true),
  message: z.string().min(1),
  data: z.array(z.unknown()),
  total: z.number(),
  page: z.number(),
  page_size: z.number(),
  total_pages: z.number(),
});
const pageC = z.strictObject({
  count: z.number(),
  next: z.string().nullable(),
  previous: z.string().nullable(),
  results: z.array(z.unknown()),
});

/** What each declared envelope may answer with a JSON body. */
const shapes: Record<EnvelopeKind, { data?: z.ZodType; page?: z.ZodType }> = {
  A: { data: envelopeA, page: pageA },
  B: { data: envelopeB, page: pageB },
  C: { page: pageC },
  bare: {},
  none: {},
};

/** Every kind of result a handler can return. */
const results: Array<[string, () => unknown, 'data' | 'page' | 'raw']> = [
  ['plain data', () => item, 'data'],
  ['no data', () => undefined, 'data'],
  ['a page', () => paged([item], { value: 3, estimated: false, more: page.page < 3 }, page), 'page'],
  ['an outcome with its own status and message', () => outcome(item, { status: 201, message: 'Made.' }), 'data'],
  ['an outcome with a total', () => outcome([item], { total: 1 }), 'data'],
  ['a reply with a JSON body', () => reply(207, item), 'data'],
  ['a reply without a body', () => reply(302, undefined, { Location: 'https://elsewhere.example.test/' }), 'raw'],
  ['a reply with bytes', () => reply(200, Buffer.from('bytes')), 'raw'],
  ['a reply with a stream', () => reply(200, Readable.from([Buffer.from('bytes')])), 'raw'],
  ['a reply with serialized JSON', () => reply(200, new JsonText('{"a":1}')), 'raw'],
  ['serialized JSON', () => new JsonText('{"a":1}'), 'raw'],
  ['no content', () => noContent(), 'raw'],
];

function rendered(route: AnyRoute, result: unknown): HttpReply | Error {
  try {
    return routeReply(route, contextFor(route), result);
  } catch (error) {
    return error as Error;
  }
}

describe('route envelopes', () => {
  it.each(routes)('%s %s %s declares an envelope the chain renders, with a message where it has one', (_group, _method, _path, route) => {
    expect(Object.keys(shapes)).toContain(route.envelope);
    if (route.envelope === 'A' || route.envelope === 'B') expect(route.message).toMatch(/\S/);
    if (route.envelope === 'C') expect(route.query?.().safeParse({ page: '2', page_size: '1' }).success).toBe(true);
  });

  it.each(routes)('%s %s %s answers every kind of result in its declared envelope or refuses it', (_group, _method, _path, route) => {
    for (const [description, make, kind] of results) {
      const result = make();
      const answer = rendered(route, result);
      const shape = shapes[route.envelope];
      const expected = kind === 'page' ? shape.page : kind === 'data' ? shape.data : undefined;

      if (answer instanceof Error) {
        // Refused as a bug (a 500 that a test of the route meets first): only where no shape fits.
        expect({ description, refused: answer.message }).toMatchObject({ description, refused: expect.stringContaining(route.path) });
        expect(expected === undefined || route.envelope === 'C').toBe(true);
        continue;
      }
      if (expected !== undefined) {
        expect({ description, problems: expected.safeParse(answer.body).error?.issues }).toEqual({ description, problems: undefined });
      } else if (kind !== 'raw' && route.envelope !== 'C') {
        // `bare` and `none`: the handler's body is the answer, unchanged.
        const body = result instanceof HttpReply ? result.body : result instanceof Outcome ? result.data : result;
        expect({ description, body: answer.body }).toEqual({ description, body });
      }
      if (kind === 'raw' && result instanceof HttpReply) expect(answer).toBe(result);
    }
  });

  it('takes the status from an outcome or a reply, else from the route, into Envelope B', () => {
    const route = routes.find(([, , , candidate]) => candidate.envelope === 'B' && candidate.status === 201)![3];

    expect(routeReply(route, contextFor(route), item)).toMatchObject({
      status: 201,
      body: { success: true, status_code: 201, data: item },
    });
    expect(routeReply(route, contextFor(route), outcome(item, { status: 400, message: 'None stored.' }))).toMatchObject({
      status: 400,
      body: { success: false, message: 'None stored.', status_code: 400 },
    });
    expect(routeReply(route, contextFor(route), reply(207, item))).toMatchObject({ status: 207, body: { status_code: 207, data: item } });
  });

  it('links the pages of Envelope C from the request URL', () => {
    const route = routes.find(([, , , candidate]) => candidate.envelope === 'C')![3];

    expect(routeReply(route, contextFor(route), paged([item], { value: 3, estimated: false, more: page.page < 3 }, page)).body).toEqual({
      count: 3,
      next: 'https://api.example.test/api/things/?page=3&page_size=1',
      previous: 'https://api.example.test/api/things/?page_size=1',
      results: [item],
    });
  });
});

describe('envelopes are built only by the chain', () => {
  async function sourceFiles(dir: string): Promise<string[]> {
    const entries = await readdir(dir, { withFileTypes: true, recursive: true });
    return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => path.join(entry.parentPath, entry.name));
  }

  it('no group module imports the envelope builders or writes an envelope member', async () => {
    const offenders: string[] = [];
    for (const file of await sourceFiles(path.resolve('functions'))) {
      const code = (await readFile(file, 'utf8')).replace(/^\s*(\/\/|\*|\/\*\*).*$/gm, '');
      if (/from '#shared\/http\/envelopes\.ts'/.test(code)) offenders.push(`${file}: imports the envelope builders`);
      if (/\bstatus: 'success'|\bstatus_code:|\bpagination:/.test(code)) offenders.push(`${file}: writes an envelope member`);
    }

    expect(offenders).toEqual([]);
  });
});
