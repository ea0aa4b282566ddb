// The rules of social apps in a scope: validation of the whole app on create and change, the secret
// stored only sealed (shared/social/social-app-secret.ts), delete, and a change of who vouches for
// the subjects (provider, issuer, GitHub API), refused while users are linked to the provider.
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { AppError, NotFoundError, ValidationError } from '#shared/errors.ts';
import { sealSocialSecret } from '#shared/social/social-app-secret.ts';
import {
  deleteSocialApp,
  findSocialApp,
  insertSocialApp,
  linkedUserCount,
  setSealedSecret,
  updateSocialApp,
  type SocialAppRow,
  type SocialAppValues,
} from './social-app-repository.ts';
import { identitySource } from './login/provider-client.ts';
import { assertValidSocialApp, type SocialAppFields } from './social-app-rules.ts';
import { assertManagesSocialApps, type SocialScope } from './social-scope.ts';

export async function existingSocialApp(db: Queryable, scope: SocialScope, id: number): Promise<SocialAppRow> {
  const row = await findSocialApp(db, scope, id);
  if (row === undefined) throw new NotFoundError('Social app not found.');
  return row;
}

/** What create and PATCH take: the app's columns and its secret in clear. */
export type SocialAppInput = Partial<SocialAppFields>;

async function storeSecret(db: Queryable, scope: SocialScope, id: number, secret: string): Promise<void> {
  await setSealedSecret(db, scope, id, sealSocialSecret(await scope.secretsKey(), scope.secretScope, id, secret));
}

export async function createSocialApp(db: Queryable, scope: SocialScope, caller: Principal, input: SocialAppInput): Promise<SocialAppRow> {
  await assertManagesSocialApps(db, scope, caller);
  const fields = { provider_id: '', key: '', settings: {}, ...input };
  assertValidSocialApp(fields);
  const { secret, ...values } = fields;
  return db.transaction(async (tx) => {
    const id = await insertSocialApp(tx, scope, values);
    await storeSecret(tx, scope, id, secret);
    return existingSocialApp(tx, scope, id);
  });
}

export async function changeSocialApp(
  db: Queryable,
  scope: SocialScope,
  caller: Principal,
  id: number,
  input: SocialAppInput,
): Promise<SocialAppRow> {
  await assertManagesSocialApps(db, scope, caller);
  return db.transaction(async (tx) => {
    const current = await existingSocialApp(tx, scope, id);
    const { secret, ...merged }: SocialAppInput = {
      provider: current.provider,
      provider_id: current.provider_id,
      name: current.name,
      client_id: current.client_id,
      key: current.key,
      settings: current.settings,
      ...Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)),
    };
    // An omitted secret keeps the stored one (sealed, or a legacy plaintext start-up has not sealed yet).
    assertValidSocialApp({ ...merged, secret: secret ?? (current.secret_sealed !== null || current.secret !== '' ? 'kept' : '') });
    await assertKeepsLinkedSubjects(tx, scope, current, merged as SocialAppValues);
    await updateSocialApp(tx, scope, id, merged as SocialAppValues);
    if (secret !== undefined) await storeSecret(tx, scope, id, secret);
    return existingSocialApp(tx, scope, id);
  });
}

/**
 * Links are keyed by app and subject. Pointing a linked app at another issuer would let that issuer
 * sign in the old subjects, whoever it gives them to; a new source is a new app.
 */
async function assertKeepsLinkedSubjects(db: Queryable, scope: SocialScope, current: SocialAppRow, next: SocialAppValues) {
  if (identitySource(current) === identitySource(next)) return;
  const linked = await linkedUserCount(db, scope, current.id);
  if (linked === 0) return;
  const field = current.provider === next.provider ? 'settings' : 'provider';
  throw new ValidationError(`This provider's issuer cannot change: ${linked} user(s) sign in with it.`, {
    fieldErrors: { [field]: ['The issuer (provider, settings.server_url or settings.api_url) cannot change while users are linked.'] },
    extras: { suggestion: 'Create a new provider for the new issuer.', active_users: linked },
  });
}

/** The spec's refusal: 400 `{success: false, message, suggestion, active_users}`. */
class SocialAppInUseError extends AppError {
  constructor(activeUsers: number) {
    super(400, 'VALIDATION_ERROR', `This provider cannot be deleted: ${activeUsers} user(s) sign in with it.`, {
      extras: { suggestion: 'Unlink the users from this provider first, or keep the provider.', active_users: activeUsers },
    });
  }
}

export async function removeSocialApp(db: Queryable, scope: SocialScope, caller: Principal, id: number): Promise<void> {
  await assertManagesSocialApps(db, scope, caller);
  await db.transaction(async (tx) => {
    await existingSocialApp(tx, scope, id);
    const linked = await linkedUserCount(tx, scope, id);
    if (linked > 0) throw new SocialAppInUseError(linked);
    await deleteSocialApp(tx, scope, id);
  });
}
