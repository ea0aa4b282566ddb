// How secret types and secrets look on the wire. A listed secret never carries its value.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import type { HistoryRow, SecretRow, SecretTypeRow } from './secret-repository.ts';

export const MASKED_VALUE = '***HIDDEN***';

/** The wire shapes of the records below, for the OpenAPI document and the test-time response check. */
export const secretTypeSchema = lazySchema(() =>
  z
    .strictObject({
      slug: z.string(),
      name: z.string(),
      description: z.string(),
      schema: z.unknown(),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'SecretType' }),
);

export const secretSchema = lazySchema(() =>
  z
    .strictObject({
      key: z.string(),
      value: z.unknown().meta({ description: 'The value, or the mask where it is not shown' }),
      secret_type: z.string().nullable(),
      description: z.string(),
      app: z.string().nullable(),
      version: z.number().int(),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'Secret' }),
);

export const secretHistorySchema = lazySchema(() =>
  z
    .strictObject({
      version: z.number().int(),
      action: z.enum(['created', 'updated', 'deleted']),
      changed_by: z.string().nullable(),
      changed_at: z.string(),
    })
    .meta({ id: 'SecretHistoryEntry' }),
);

export function secretTypeRecord(type: SecretTypeRow) {
  return {
    slug: type.slug,
    name: type.name,
    description: type.description,
    schema: type.schema,
    created_at: type.createdAt.toISOString(),
    updated_at: type.updatedAt.toISOString(),
  };
}

export function secretRecord(secret: SecretRow, value: unknown) {
  return {
    key: secret.key,
    value,
    secret_type: secret.secretTypeSlug,
    description: secret.description,
    app: secret.appSlug,
    version: secret.version,
    created_at: secret.createdAt.toISOString(),
    updated_at: secret.updatedAt.toISOString(),
  };
}

export function maskedSecretRecord(secret: SecretRow) {
  return secretRecord(secret, MASKED_VALUE);
}

export function historyRecord(entry: HistoryRow) {
  return { version: entry.version, action: entry.action, changed_by: entry.changedBy, changed_at: entry.changedAt.toISOString() };
}
