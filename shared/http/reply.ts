// A handler returns either a body (sent with its route's status) or an HttpReply when the status or
// headers depend on the outcome (an upsert's 200 or 201, a redirect, a file download). A reply body
// may be a Readable: the dev server pipes it, Lambda collects it (see body-streams.ts); give such a
// reply its `Content-Length` header when the size is known.
export class HttpReply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export function reply(status: number, body?: unknown, headers?: Record<string, string>): HttpReply {
  return new HttpReply(status, body, headers);
}

/** 204: HTTP forbids a body, so any body the spec shows beside it is dropped. */
export function noContent(): HttpReply {
  return new HttpReply(204, undefined);
}

/**
 * A body already serialized as JSON (by the database, for large answers such as a bulk create), sent
 * as it is instead of being parsed into objects only to be serialized again.
 */
export class JsonText {
  constructor(readonly text: string) {}
}
