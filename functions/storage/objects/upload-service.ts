// The three ways files come in: upload by path (raw bytes or a multipart `file`), the legacy
// multipart upload (`file`, `path`, `metadata`), and batch upload (up to 10 `files`). All stream the
// bytes into the store as they arrive and upsert: a new path answers 201, a replaced one 200.
import { AppError, ForbiddenError, ValidationError } from '#shared/errors.ts';
import type { StreamedBody } from '#shared/http/body-streams.ts';
import { parseJsonText } from '#shared/http/json-body.ts';
import { parseOrThrow } from '#shared/http/validation.ts';
import type { ZodType } from 'zod';
import type { BucketRow } from '../buckets/bucket-repository.ts';
import type { BucketParams } from '../buckets/bucket-schemas.ts';
import { uploadMimeType } from '../mime-rules.ts';
import type { StorageEnv } from '../storage-env.ts';
import { canWrite } from './object-access.ts';
import { lastSegment, newObjectPath, normalizeFilename } from './object-keys.ts';
import { findObject, type ObjectRow } from './object-repository.ts';
import { batchMetadataField, batchPathsField, metadataField, type ObjectParams } from './object-schemas.ts';
import { isMultipart, readMultipart, type FilePart, type MultipartLimits } from '#shared/http/multipart.ts';
import {
  abandon,
  assertDirectUpload,
  assertMetadataSize,
  assertMimeAllowed,
  commitUpload,
  storeBytes,
  writeTarget,
  type StoredBytes,
  type WriteTarget,
} from './object-writes.ts';

export interface UploadOutcome {
  bucket: BucketRow;
  object: ObjectRow;
  created: boolean;
}

const SINGLE_FILE: MultipartLimits = { files: 1, fields: 5, fieldSize: 64 * 1024 };
export const MAX_BATCH_FILES = 10;
const BATCH: MultipartLimits = { files: MAX_BATCH_FILES, fields: 5, fieldSize: 1024 * 1024 };

/** `X-Metadata-<Name>` and `X-Store-Meta-<Name>` headers, keys lowercase with hyphens. */
export function headerMetadata(headers: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const metadata: Record<string, string> = {};
  // X-Metadata- wins over the store-compatible spelling of the same name.
  for (const prefix of ['x-store-meta-', 'x-metadata-']) {
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined || !name.startsWith(prefix) || name.length === prefix.length) continue;
      metadata[name.slice(prefix.length).toLowerCase().replace(/_/g, '-')] = value;
    }
  }
  return metadata;
}

/** A JSON form field parsed with `schema`; absent or blank is `fallback`. */
function jsonField<T>(raw: string | undefined, field: string, schema: ZodType<T>, fallback: T): T {
  if (raw === undefined || raw.trim() === '') return fallback;
  let value: unknown;
  try {
    value = parseJsonText(raw, `The form field "${field}"`);
  } catch (error) {
    const tooDeep = error instanceof AppError && error.extras?.max_json_depth !== undefined;
    throw ValidationError.forFields({ [field]: [tooDeep ? error.message : 'Send valid JSON.'] });
  }
  return parseOrThrow(schema, value, field);
}

/** Runs `work` on stored bytes; if it fails, the bytes go before the error is passed on. */
async function orAbandon<T>(target: WriteTarget, keys: readonly string[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    await abandon(target, keys);
    throw error;
  }
}

interface ReceivedFile {
  bytes: StoredBytes;
  filename: string;
}

/** Checks a file part's type against the bucket and streams it into the store. */
async function receiveFile(target: WriteTarget, part: FilePart, filename: string): Promise<ReceivedFile> {
  const mimetype = await uploadMimeType(part.mimeType, filename);
  if (mimetype === undefined) throw new ValidationError(`The file part's Content-Type "${part.mimeType}" is not a media type.`);
  assertMimeAllowed(target.bucket, mimetype);
  return { bytes: await storeBytes(target, { stream: part.stream, filename, mimetype }), filename };
}

/** The one `file` of a single-file form with the form's text fields. */
async function singleFile(target: WriteTarget, body: StreamedBody, defaultName: string | undefined) {
  const stored: string[] = [];
  const form = await readMultipart(body, SINGLE_FILE, async (part) => {
    if (part.field !== 'file') throw ValidationError.forFields({ [part.field]: ['Send the file in the "file" field.'] });
    const filename = part.filename ? normalizeFilename(part.filename, 'file') : defaultName;
    if (filename === undefined) throw ValidationError.forFields({ file: ['The file part needs a file name.'] });
    const received = await receiveFile(target, part, filename);
    stored.push(received.bytes.key);
    return received;
  }).catch(async (error: unknown) => {
    // The form was refused after the file may have landed: nothing of it stays.
    await abandon(target, stored);
    throw error;
  });
  const [file] = form.files;
  if (file === undefined) throw ValidationError.forFields({ file: ['No file was submitted.'] });
  if (file.status === 'rejected') throw file.reason;
  return { ...file.value, fields: form.fields };
}

/** PUT or POST `.../objects/{key}`: raw bytes, or multipart with a `file` field; headers carry metadata. */
export async function uploadByPath(
  env: StorageEnv,
  params: ObjectParams,
  body: StreamedBody,
  headers: Readonly<Record<string, string | undefined>>,
): Promise<UploadOutcome> {
  const path = newObjectPath(params.key, 'path');
  const target = await writeTarget(env, params);
  assertDirectUpload(target, body.contentLength);
  // Refused before a byte is read when the path holds an object the caller may not change.
  const existing = await findObject(env.db, env.site, target.bucket.id, path);
  if (existing !== undefined && !canWrite(env.caller, existing, target.bucket)) {
    throw new ForbiddenError('An object you may not change already exists at this path.');
  }
  const fromHeaders = headerMetadata(headers);
  if (isMultipart(body.contentType)) {
    const file = await singleFile(target, body, lastSegment(path));
    const metadata = await orAbandon(target, [file.bytes.key], async () => {
      const combined = { ...fromHeaders, ...jsonField(file.fields.get('metadata'), 'metadata', metadataField(), {}) };
      assertMetadataSize(combined);
      return combined;
    });
    return commitUpload(target, { path, filename: file.filename, metadata, bytes: file.bytes });
  }
  assertMetadataSize(fromHeaders);
  const filename = lastSegment(path);
  const mimetype = await uploadMimeType(body.contentType, filename);
  if (mimetype === undefined)
    throw new ValidationError(`Content-Type "${body.contentType}" is not a media type (wildcards name no file type).`);
  assertMimeAllowed(target.bucket, mimetype);
  const bytes = await storeBytes(target, { stream: body.stream, filename, mimetype, contentLength: body.contentLength });
  return commitUpload(target, { path, filename, metadata: fromHeaders, bytes });
}

/** POST `.../objects/`: multipart `file`, optional `path` (default: the file name) and `metadata`. */
export async function legacyUpload(env: StorageEnv, params: BucketParams, body: StreamedBody): Promise<UploadOutcome> {
  const target = await writeTarget(env, params);
  assertDirectUpload(target, body.contentLength);
  if (!isMultipart(body.contentType)) throw new ValidationError('Send multipart/form-data with the file in the "file" field.');
  const file = await singleFile(target, body, undefined);
  const record = await orAbandon(target, [file.bytes.key], async () => {
    const path = newObjectPath(file.fields.get('path') || file.filename, 'path');
    const metadata = jsonField(file.fields.get('metadata'), 'metadata', metadataField(), {});
    assertMetadataSize(metadata);
    return { path, metadata };
  });
  return commitUpload(target, { ...record, filename: file.filename, bytes: file.bytes });
}

export interface BatchOutcome {
  uploaded: UploadOutcome[];
  failed: Array<{ filename: string; error: string }>;
}

type BatchFile = { ok: true; file: ReceivedFile } | { ok: false; filename: string; error: string };

/** A per-file refusal is reported in `failed`; a server-side failure ends the whole request. */
function clientError(error: unknown): string {
  if (error instanceof AppError && error.status < 500) return error.message;
  throw error;
}

/**
 * POST `.../objects/batch-upload/` (DECISIONS): repeated `files` (1–10), optional `paths` (JSON array
 * in the same order) and `metadata` (one JSON object for all, or an array in the same order). Each
 * file succeeds or fails on its own; a malformed form fails as a whole and keeps nothing.
 */
export async function batchUpload(env: StorageEnv, params: BucketParams, body: StreamedBody): Promise<BatchOutcome> {
  const target = await writeTarget(env, params);
  assertDirectUpload(target, body.contentLength);
  if (!isMultipart(body.contentType)) throw new ValidationError('Send multipart/form-data with the files in "files" fields.');
  const stored: string[] = [];
  const form = await readMultipart(body, BATCH, async (part): Promise<BatchFile> => {
    const filename = part.filename ?? '';
    try {
      if (part.field !== 'files') throw new ValidationError(`Send files in "files" fields, not "${part.field}".`);
      const received = await receiveFile(target, part, normalizeFilename(filename, 'files'));
      stored.push(received.bytes.key);
      return { ok: true, file: received };
    } catch (error) {
      return { ok: false, filename, error: clientError(error) };
    }
  }).catch(async (error: unknown) => {
    await abandon(target, stored);
    throw error;
  });
  const files: BatchFile[] = [];
  const { paths, metadata } = await orAbandon(target, stored, async () => {
    for (const result of form.files) {
      // Consumers answer client errors as entries; what still rejects is a server-side failure.
      if (result.status === 'rejected') throw result.reason;
      files.push(result.value);
    }
    if (files.length === 0) throw ValidationError.forFields({ files: ['No file was submitted.'] });
    const givenPaths = jsonField(form.fields.get('paths'), 'paths', batchPathsField(), undefined);
    const givenMetadata = jsonField(form.fields.get('metadata'), 'metadata', batchMetadataField(), {});
    if (givenPaths !== undefined && givenPaths.length !== files.length) {
      throw ValidationError.forFields({ paths: [`Give one path per file (${files.length}).`] });
    }
    if (Array.isArray(givenMetadata) && givenMetadata.length !== files.length) {
      throw ValidationError.forFields({ metadata: [`Give one metadata object per file (${files.length}), or one object for all.`] });
    }
    return { paths: givenPaths, metadata: givenMetadata };
  });

  const outcome: BatchOutcome = { uploaded: [], failed: [] };
  const taken = new Set<string>();
  for (const [index, file] of files.entries()) {
    if (!file.ok) {
      outcome.failed.push({ filename: file.filename, error: file.error });
      continue;
    }
    const { filename, bytes } = file.file;
    try {
      const record = await orAbandon(target, [bytes.key], async () => {
        const path = newObjectPath(paths?.[index] ?? filename, 'paths');
        if (taken.has(path)) throw new ValidationError(`The path "${path}" appears twice in this batch.`);
        const fileMetadata = Array.isArray(metadata) ? metadata[index]! : metadata;
        assertMetadataSize(fileMetadata);
        return { path, metadata: fileMetadata };
      });
      taken.add(record.path);
      outcome.uploaded.push(await commitUpload(target, { ...record, filename, bytes }));
    } catch (error) {
      outcome.failed.push({ filename, error: clientError(error) });
    }
  }
  return outcome;
}
