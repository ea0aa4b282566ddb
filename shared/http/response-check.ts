// The test-time proof of the routes' declared `response` schemas: with VALIDATE_RESPONSES=1 (set by
// vitest.config.ts) every handler's data is parsed with its route's schema before the envelope is
// applied, and a mismatch fails the request loudly, so the whole test suite checks the OpenAPI
// document against real answers. Off in production: the flag is read once and the deployed path
// only tests a constant.
import { Readable } from 'node:stream';
import type * as z from 'zod';
import { Outcome, PageResult } from './answers.ts';
import { HttpReply, JsonText } from './reply.ts';
import type { AnyRoute } from './route.ts';

const checking = process.env.VALIDATE_RESPONSES === '1';

/** The data the route's `response` describes: each item of a page, an Outcome's data, an enveloped reply's body. */
function declaredData(result: unknown): { items: unknown[] } | undefined {
  // Pre-serialized JSON (record lists, bulk creates) is text the schema cannot read without a second parse.
  if (result instanceof JsonText) return undefined;
  if (result instanceof PageResult) return { items: result.items };
  if (result instanceof Outcome) return { items: [result.data] };
  if (result instanceof HttpReply) {
    const body = result.body;
    // Bytes, streams, pre-serialized JSON and bodiless replies are not JSON data the schema describes.
    if (body === undefined || body instanceof Readable || body instanceof JsonText || Buffer.isBuffer(body)) return undefined;
    return { items: [body] };
  }
  return { items: [result] };
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/** Throws (a 500, logged by the error renderer) when the handler's data does not match the route's declared response. */
export function checkDeclaredResponse(route: AnyRoute, result: unknown): void {
  if (!checking || route.response === undefined || route.envelope === 'none') return;
  const data = declaredData(result);
  if (data === undefined) return;
  const schema = route.response();
  for (const item of data.items) {
    const parsed = schema.safeParse(item);
    if (!parsed.success) {
      throw new Error(
        `Response of ${route.method} ${route.path} does not match its declared schema: ${describeIssues(parsed.error.issues)}`,
      );
    }
  }
}
