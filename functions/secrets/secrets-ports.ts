// The ports of the secrets endpoints, taken from the request's runtime.
import { loadSecretsKey } from '#shared/crypto/secrets-key.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import type { SecretsPorts } from './secret-values.ts';

export function secretsPorts(ctx: RequestContext): SecretsPorts {
  return { db: ctx.runtime.db, secretsKey: () => loadSecretsKey(ctx.runtime.config) };
}
