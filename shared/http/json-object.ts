// A JSON object body as the client sent it. zod's `z.record` and `z.json` copy an object into a
// fresh `{}`, where a `"__proto__"` member sets the copy's prototype instead of becoming a key: the
// member vanishes and the request is answered as if it had not been sent. This schema checks the
// shape and passes the parsed object on untouched, so such a key reaches the service's own check.
import * as z from 'zod';

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON object with any members, every member kept (including `__proto__`). */
export function jsonObject(message = 'Expected a JSON object.') {
  // The type is told to the OpenAPI document, which cannot see through a custom check.
  return z.custom<JsonObject>(isJsonObject, { message }).meta({ type: 'object', additionalProperties: true });
}
