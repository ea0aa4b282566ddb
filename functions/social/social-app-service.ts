// The rules of social apps in a scope: validation of the whole app on create and change, delete
// refused while users are linked to the provider.
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { AppError, NotFoundError } from '#shared/errors.ts';
import {
  deleteSocialApp,
  findSocialApp,
  insertSocialApp,
  linkedUserCount,
  updateSocialApp,
  type SocialAppRow,
  type SocialAppValues,
} from './social-app-repository.ts';
import { assertValidSocialApp } from './social-app-rules.ts';
import { assertManagesSocialApps, type SocialScope } from './social-scope.ts';

export async function existingSocialApp(db: Queryable, scope: SocialScope, id: number): Promise<SocialAppRow> {
  const row = await findSocialApp(db, scope, id);
  if (row === undefined) throw new NotFoundError('Social app not found.');
  return row;
}

export async function createSocialApp(db: Queryable, scope: SocialScope, caller: Principal, input: Partial<SocialAppValues>): Promise<SocialAppRow> {
  await assertManagesSocialApps(db, scope, caller);
  const values = { provider_id: '', key: '', settings: {}, ...input };
  assertValidSocialApp(values);
  return insertSocialApp(db, scope, values);
}

export async function changeSocialApp(
  db: Queryable,
  scope: SocialScope,
  caller: Principal,
  id: number,
  input: Partial<SocialAppValues>,
): Promise<SocialAppRow> {
  await assertManagesSocialApps(db, scope, caller);
  return db.transaction(async (tx) => {
    const current = await existingSocialApp(tx, scope, id);
    const merged: Partial<SocialAppValues> = {
      provider: current.provider,
      provider_id: current.provider_id,
      name: current.name,
      client_id: current.client_id,
      secret: current.secret,
      key: current.key,
      settings: current.settings,
      ...Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)),
    };
    assertValidSocialApp(merged);
    return updateSocialApp(tx, scope, id, merged);
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
