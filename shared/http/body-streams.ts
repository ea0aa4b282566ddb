// Request and reply bodies that stream instead of sitting whole in memory. The dev server hands the
// body of a `streamBody` route to the handler as a stream, and pipes a stream reply to the socket.
// Deployed, API Gateway delivers the body buffered in the event (at most 6 MB) and wants the reply
// in the result, so the same handler gets a stream over the buffered body and its stream reply is
// collected. Keyed by the event, the one object both the dev server and the handler chain see.
import { Readable } from 'node:stream';
import { LAMBDA_DIRECT_TRANSFER_MAX_BYTES } from '#shared/config.ts';
import { BadRequestError, PayloadTooLargeError } from '#shared/errors.ts';
import type { ApiEvent } from './gateway-event.ts';

/**
 * The client stopped sending a streamed body: it broke off the connection (`aborted`), or sent
 * nothing for a while (`stalled`). The client's doing, not the platform's: a 400 logged at WARN,
 * never a 5xx. Its socket error (an ECONNRESET of the request, not of the database) stays in
 * `clientCode` rather than in `cause`, so nothing reads it as a lost database connection.
 */
export class RequestBodyBrokenError extends BadRequestError {
  constructor(
    readonly reason: 'aborted' | 'stalled',
    readonly clientCode?: string,
  ) {
    super(
      reason === 'aborted'
        ? 'The request body ended before all of it arrived: the client broke off the upload.'
        : 'The request body stopped arriving: no bytes came for too long.',
    );
  }
}

/** What a `streamBody` route's handler gets as its body. */
export interface StreamedBody {
  stream: Readable;
  /** The request's Content-Type header as sent. */
  contentType?: string;
  /** Bytes announced by Content-Length (or the buffered body's length), when known. */
  contentLength?: number;
}

interface StreamingChannel {
  request?: Readable;
  reply?: Readable;
}

const channels = new WeakMap<ApiEvent, StreamingChannel>();

/**
 * Called by a caller that can stream (the dev server) before it invokes the handler: replies to
 * this event may stream, and `request` is the unbuffered body of a `streamBody` route.
 */
export function openStreamingChannel(event: ApiEvent, request?: Readable): void {
  channels.set(event, { request });
}

/** The body of a `streamBody` route: the caller's stream, else a stream over the event's body. */
export function streamedBodyOf(
  event: ApiEvent,
  rawBody: Buffer | undefined,
  headers: Readonly<Record<string, string | undefined>>,
): StreamedBody {
  const contentType = headers['content-type'];
  const channelStream = channels.get(event)?.request;
  if (channelStream !== undefined) {
    const announced = headers['content-length'];
    const contentLength = announced !== undefined && /^\d+$/.test(announced) ? Number(announced) : undefined;
    return { stream: channelStream, contentType, contentLength };
  }
  const bytes = rawBody ?? Buffer.alloc(0);
  return { stream: Readable.from([bytes]), contentType, contentLength: bytes.length };
}

/** Lambda answers at most 6 MB, base64 included: a buffered stream reply stays within 4 MiB. */
export const MAX_BUFFERED_REPLY_BYTES = LAMBDA_DIRECT_TRANSFER_MAX_BYTES;

/**
 * Where a stream reply's bytes go: handed to the streaming caller (answers undefined: the result
 * carries no body), or collected into a buffer for the gateway (refused past the Lambda limit).
 */
export async function deliverReplyStream(
  event: ApiEvent,
  stream: Readable,
  declaredLength: number | undefined,
): Promise<Buffer | undefined> {
  const channel = channels.get(event);
  if (channel !== undefined) {
    channel.reply = stream;
    return undefined;
  }
  const tooLarge = () =>
    new PayloadTooLargeError(
      `The response would exceed the ${MAX_BUFFERED_REPLY_BYTES} bytes a direct API answer can carry; ask for a byte range (Range header) or use a presigned download.`,
    );
  if (declaredLength !== undefined && declaredLength > MAX_BUFFERED_REPLY_BYTES) {
    stream.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buffer.length;
    if (size > MAX_BUFFERED_REPLY_BYTES) {
      stream.destroy();
      throw tooLarge();
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** The dev server's side: the stream reply the handler left for this event, taken once. */
export function takeReplyStream(event: ApiEvent): Readable | undefined {
  const channel = channels.get(event);
  const reply = channel?.reply;
  if (channel !== undefined) channel.reply = undefined;
  return reply;
}
