// Reads a multipart/form-data body as it streams in (busboy): each file part goes to a consumer
// while it arrives, never whole in memory; text fields are collected. A consumer may give up on a
// file (refused type, over the size limit): the rest of that part is read and dropped so the
// parser reaches the parts after it.
import { PassThrough, type Readable } from 'node:stream';
import busboy from 'busboy';
import { BadRequestError, ValidationError } from '#shared/errors.ts';
import type { StreamedBody } from './body-streams.ts';

export interface FilePart {
  field: string;
  /** The part's file name as sent (busboy keeps only its last path segment). */
  filename?: string;
  /** The part's Content-Type essence (`text/plain` when the part named none). */
  mimeType: string;
  stream: Readable;
}

export interface MultipartLimits {
  files: number;
  fields: number;
  /** Bytes of one text field. */
  fieldSize: number;
}

export interface MultipartResult<T> {
  fields: Map<string, string>;
  /** What each file's consumer answered, in the order of the parts. */
  files: Array<PromiseSettledResult<T>>;
}

export function isMultipart(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*multipart\/form-data\s*;/i.test(contentType);
}

/**
 * Parses the body, handing each file part to `onFile` as it arrives. Resolves once the body ended
 * and every consumer settled; rejects with a 400 for a malformed body or one past the limits,
 * also only after every consumer settled (so a caller can clean up what they stored).
 */
export function readMultipart<T>(
  body: StreamedBody,
  limits: MultipartLimits,
  onFile: (part: FilePart) => Promise<T>,
): Promise<MultipartResult<T>> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': body.contentType ?? '' },
        // One part beyond the limit is counted so an overlong body is refused, not cut short.
        limits: { files: limits.files + 1, fields: limits.fields, fieldSize: limits.fieldSize, parts: limits.files + limits.fields + 1 },
      });
    } catch {
      reject(new BadRequestError('Send multipart/form-data with a boundary.'));
      return;
    }
    const fields = new Map<string, string>();
    const consumers: Array<Promise<T>> = [];
    let failure: Error | undefined;
    const fail = (error: Error) => {
      failure ??= error;
    };

    parser.on('file', (field, file, info) => {
      if (consumers.length >= limits.files) {
        fail(new ValidationError(`Send at most ${limits.files} file${limits.files === 1 ? '' : 's'} in one request.`));
        file.resume();
        return;
      }
      const through = new PassThrough({ highWaterMark: 1024 * 1024 });
      // A failure may come before the consumer pipes the stream anywhere; the stream keeps it (its
      // consumer's pipeline reports it), so it must not also surface as an unhandled 'error'.
      through.on('error', () => undefined);
      file.on('error', (error) => through.destroy(error));
      file.pipe(through);
      // Whatever the consumer does with its stream, the parser must get to the end of the part.
      const drain = () => {
        file.unpipe(through);
        file.resume();
      };
      through.on('close', drain);
      const consumer = onFile({ field, filename: info.filename, mimeType: info.mimeType, stream: through });
      consumer.then(drain, drain);
      consumers.push(consumer);
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new ValidationError(`The field "${name}" is longer than ${limits.fieldSize} bytes.`));
      else fields.set(name, value);
    });
    parser.on('fieldsLimit', () => fail(new ValidationError(`Send at most ${limits.fields} form fields.`)));
    parser.on('partsLimit', () => fail(new ValidationError('The form has too many parts.')));
    parser.on('error', (error: Error) => fail(new BadRequestError(`The multipart body is malformed: ${error.message}`)));
    parser.on('close', () => {
      void Promise.allSettled(consumers).then((files) => (failure === undefined ? resolve({ fields, files }) : reject(failure)));
    });
    body.stream.on('error', (error) => parser.destroy(error));
    body.stream.pipe(parser);
  });
}
