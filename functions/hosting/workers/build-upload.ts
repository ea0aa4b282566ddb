// Reads a multipart form carrying one build archive (`file`): the archive is unpacked into the
// builds store while it arrives, under a new build's prefix, and the text fields are collected.
// When anything fails, nothing of the build stays in the store.
import { randomUUID } from 'node:crypto';
import { ValidationError } from '#shared/errors.ts';
import { buildPrefixOf } from '#shared/hosting/build-keys.ts';
import type { StreamedBody } from '#shared/http/body-streams.ts';
import { isMultipart, readMultipart } from '#shared/http/multipart.ts';
import { archiveFormatOf, extractBuild, type ExtractedBuild } from '../archives/extract-build.ts';
import type { HostingEnv } from '../hosting-env.ts';

export interface UploadedBuild extends ExtractedBuild {
  uuid: string;
  prefix: string;
}

export interface BuildForm {
  fields: Map<string, string>;
  build: UploadedBuild;
}

const FORM_LIMITS = { files: 1, fields: 10, fieldSize: 4096 };

/** Removes a stored build's files (a form that failed after its archive was unpacked). */
export async function discardBuild(env: HostingEnv, build: Pick<ExtractedBuild, 'keys'>): Promise<void> {
  await env.store.deleteMany(build.keys);
}

export async function readBuildForm(env: HostingEnv, body: StreamedBody): Promise<BuildForm> {
  if (!isMultipart(body.contentType)) throw ValidationError.forFields({ file: ['Send multipart/form-data with the archive in "file".'] });
  const uuid = randomUUID();
  const prefix = buildPrefixOf(env.site.uuid, uuid);
  // Kept aside: a form refused after the archive was unpacked (a field too long) must not leave it behind.
  let unpacked: ExtractedBuild | undefined;
  let form: Awaited<ReturnType<typeof readMultipart<ExtractedBuild>>>;
  try {
    form = await readMultipart(body, FORM_LIMITS, async (part) => {
      if (part.field !== 'file') throw ValidationError.forFields({ [part.field]: ['Only "file" may carry a file.'] });
      unpacked = await extractBuild(env.store, prefix, archiveFormatOf(part.filename), part.stream, env.hosting.limits);
      return unpacked;
    });
  } catch (error) {
    if (unpacked !== undefined) await discardBuild(env, unpacked);
    throw error;
  }
  const [outcome] = form.files;
  if (outcome === undefined) throw ValidationError.forFields({ file: ['This field is required.'] });
  if (outcome.status === 'rejected') throw outcome.reason;
  return { fields: form.fields, build: { ...outcome.value, uuid, prefix } };
}
