// The limits of JSON that clients send, and the one parser that holds them: a body (or a JSON form
// field) nested deeper than MAX_JSON_DEPTH is refused by a linear scan of the text before
// JSON.parse runs, so no recursive code (validation, serialisation) ever meets it; a request body
// over MAX_REQUEST_BODY_BYTES is 413, on the dev server and in Lambda alike.
import { BadRequestError, PayloadTooLargeError } from '#shared/errors.ts';
import { parseExactJson } from '#shared/json/exact-json.ts';

/** Arrays and objects inside one another, counted from the outermost; documented in the README. */
export const MAX_JSON_DEPTH = 64;

/** API Gateway hands Lambda at most about 6 MB; the dev server holds request bodies to the same. */
export const MAX_REQUEST_BODY_BYTES = 6 * 1024 * 1024;

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * The deepest nesting of arrays and objects in `text`, brackets inside strings not counted. Stops
 * as soon as `limit` is passed, so a hostile body costs one pass at most. Malformed text is left to
 * JSON.parse: this only counts.
 */
export function jsonNestingDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
      continue;
    }
    if (code === QUOTE) inString = true;
    else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      depth += 1;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) depth -= 1;
  }
  return deepest;
}

/** 413 for a request body larger than the platform takes. */
export function assertRequestBodySize(bytes: number): void {
  if (bytes > MAX_REQUEST_BODY_BYTES) {
    throw new PayloadTooLargeError(`Request body is larger than ${MAX_REQUEST_BODY_BYTES} bytes.`, {
      extras: { max_body_bytes: MAX_REQUEST_BODY_BYTES },
    });
  }
}

/** JSON.parse behind the depth limit; `what` names the text in messages (`JSON body`, a form field). */
export function parseJsonText(text: string, what = 'JSON body', exactIntegers = false): unknown {
  if (jsonNestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw new BadRequestError(`${what} is nested deeper than ${MAX_JSON_DEPTH} levels.`, { extras: { max_json_depth: MAX_JSON_DEPTH } });
  }
  try {
    // Record routes keep integers past 2^53 exact (../../json/exact-json.ts).
    return exactIntegers ? parseExactJson(text) : (JSON.parse(text) as unknown);
  } catch (error) {
    throw new BadRequestError(`JSON parse error - ${(error as Error).message}`);
  }
}
