// Local start-up: build the runtime, bring the database up to date (sealing social app secrets and
// function signing secrets stored before they were sealed), drop revocations of tokens that have expired anyway, and make sure the
// superuser exists.
import type { Config } from '#shared/config.ts';
import { purgeExpiredRevocations } from '#shared/auth/revoked-tokens.ts';
import { ensureSuperuser, type SuperuserOutcome } from '#shared/bootstrap/ensure-superuser.ts';
import { loadSecretsKey } from '#shared/crypto/secrets-key.ts';
import { sealLegacySigningSecrets } from '#shared/events/seal-legacy-signing-secrets.ts';
import { sealLegacySocialSecrets } from '#shared/social/seal-legacy-social-secrets.ts';
import { prepareDatabase } from '#shared/db/open-database.ts';
import { createRuntime, installRuntime, type Runtime } from '#shared/runtime/runtime.ts';

export interface LocalBoot {
  runtime: Runtime;
  superuser: SuperuserOutcome;
}

export async function bootLocal(config: Config, ports: Partial<Pick<Runtime, 'db' | 'objectStore'>> = {}): Promise<LocalBoot> {
  const runtime = await createRuntime(config, ports);
  await prepareDatabase(runtime.db);
  await sealLegacySocialSecrets(runtime.db, () => loadSecretsKey(config));
  await sealLegacySigningSecrets(runtime.db, () => loadSecretsKey(config));
  await purgeExpiredRevocations(runtime.db);
  const superuser = await ensureSuperuser(runtime.db, config);
  installRuntime(runtime);
  return { runtime, superuser };
}
