// How secret types and secrets look on the wire. A listed secret never carries its value.
import type { HistoryRow, SecretRow, SecretTypeRow } from './secret-repository.ts';

export const MASKED_VALUE = '***HIDDEN***';

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
