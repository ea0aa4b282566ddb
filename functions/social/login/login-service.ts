// Programmatic social sign-in (DECISIONS): start hands out the provider's authorization URL with a
// one-time state; finish checks that state (same provider, same host, same redirect URI, not used),
// exchanges the code, and signs in the account linked to the provider's subject (a link is this
// app's, in its scope's table), else the user whose email the provider says it verified (then
// linked; platform providers only), else a new user. A site's provider is configured by the site's
// owners, so it vouches only for the accounts it created or was linked to: an email that belongs to
// an existing account is 409, never a link. Nothing is created when the provider fails or the
// answer does not hold.
//
// Only a platform provider's verified claim proves who owns an email (`email_verified`): an email
// set through the profile, by an administrator or an invitation, or by a site's provider is
// unproven. Linking a provider to an account whose email is unproven hands the account to the
// person the provider vouched for: whoever set that email (possibly to take over the owner's
// future account) loses every credential the account had, its password, its tokens and its
// other provider links.
import { setTimeout as delay } from 'node:timers/promises';
import type { Queryable } from '#shared/db/database.ts';
import type { Runtime } from '#shared/runtime/runtime.ts';
import { AuthenticationFailedError, BadRequestError, ConflictError, NotFoundError } from '#shared/errors.ts';
import { untilPastCutOff } from '#shared/auth/authenticate.ts';
import type { TokenPair } from '#shared/auth/tokens.ts';
import { openSocialSecret } from '#shared/social/social-app-secret.ts';
import { slugFrom, uniqueSlug } from '#shared/text/slugs.ts';
import type { SocialAppRow } from '../social-app-repository.ts';
import type { SocialScope } from '../social-scope.ts';
import {
  claimAccount,
  consumeLoginState,
  findLoginState,
  insertLoginState,
  insertSocialUser,
  linkAccount,
  linkedUser,
  markEmailVerified,
  socialAppByLoginName,
  userByEmail,
  usernamesLike,
  type LoginUser,
} from './login-repository.ts';
import {
  assertRegisteredRedirect,
  authorizationStart,
  exchangeCode,
  providerConfiguration,
  type ProviderIdentity,
} from './provider-client.ts';

/** How long a client has between the redirect and the code exchange. */
const STATE_TTL_SECONDS = 600;

async function appNamed(runtime: Runtime, scope: SocialScope, provider: string): Promise<SocialAppRow> {
  const app = await socialAppByLoginName(runtime.db, scope, provider);
  if (app === undefined) throw new NotFoundError(`No sign-in provider "${provider}" here.`);
  return app;
}

/** The client of the app's provider, with its secret opened for this exchange only. */
async function providerOf(runtime: Runtime, scope: SocialScope, app: SocialAppRow) {
  const secret = openSocialSecret(await scope.secretsKey(), scope.secretScope, app);
  return providerConfiguration(app, secret, runtime.config.outboundAllowPrivateNetworks);
}

export async function startSocialLogin(
  runtime: Runtime,
  scope: SocialScope,
  provider: string,
  redirectUri: string,
): Promise<{ authorizationUrl: string; state: string }> {
  const app = await appNamed(runtime, scope, provider);
  assertRegisteredRedirect(app, redirectUri);
  const start = await authorizationStart(await providerOf(runtime, scope, app), redirectUri);
  await insertLoginState(
    runtime.db,
    {
      state: start.state,
      social_app_id: app.id,
      site_id: scope.site?.siteId ?? null,
      redirect_uri: redirectUri,
      code_verifier: start.codeVerifier,
      nonce: start.nonce,
    },
    STATE_TTL_SECONDS,
  );
  return { authorizationUrl: start.url.toString(), state: start.state };
}

async function newUsername(db: Queryable, identity: ProviderIdentity, email: string): Promise<string> {
  const base = (await slugFrom(identity.preferredUsername ?? email.split('@')[0] ?? '', 140)) || 'user';
  return uniqueSlug(base, (prefix) => usernamesLike(db, prefix), { maxLength: 150 });
}

export async function finishSocialLogin(
  runtime: Runtime,
  scope: SocialScope,
  provider: string,
  callback: { code: string; state: string; redirect_uri: string; iss?: string },
): Promise<{ pair: TokenPair; user: LoginUser }> {
  const app = await appNamed(runtime, scope, provider);
  const stored = await findLoginState(runtime.db, callback.state);
  // A state from another provider, another host or another redirect is as good as none.
  if (
    stored === undefined ||
    stored.social_app_id !== app.id ||
    stored.site_id !== (scope.site?.siteId ?? null) ||
    stored.redirect_uri !== callback.redirect_uri
  ) {
    throw new BadRequestError('The sign-in state is unknown, expired, already used or not for this provider.');
  }
  const identity = await exchangeCode(
    await providerOf(runtime, scope, app),
    { code: callback.code, state: callback.state, redirectUri: callback.redirect_uri, iss: callback.iss },
    { codeVerifier: stored.code_verifier, nonce: stored.nonce },
  );
  // Set when this sign-in cut an account's earlier credentials: its tokens are issued after it.
  let cutOff: Date | undefined;
  const user = await runtime.db.transaction(async (tx) => {
    if (!(await consumeLoginState(tx, callback.state))) throw new BadRequestError('The sign-in state was already used.');
    const platformProvider = scope.site === undefined;
    const linked = await linkedUser(tx, scope, app.id, identity.sub);
    if (linked !== undefined) {
      // The provider vouching again for the account's current email proves it (after a change, say).
      if (platformProvider && identity.emailVerified && identity.email !== undefined) {
        await markEmailVerified(tx, linked.id, identity.email);
      }
      return linked;
    }
    if (identity.email === undefined || !identity.emailVerified) {
      throw new BadRequestError('The provider did not verify an email address for this account; it cannot be linked or registered.');
    }
    const existing = await userByEmail(tx, identity.email);
    if (existing !== undefined && !platformProvider) {
      // Platform users are platform-wide: a provider a site owner points anywhere must not claim one.
      throw new ConflictError(
        "An account with this email already exists; sign in with it instead. A site's sign-in provider cannot be linked to an existing account.",
      );
    }
    if (existing !== undefined && !existing.email_verified) {
      cutOff = runtime.now();
      await claimAccount(tx, existing.id, cutOff);
    }
    const target =
      existing ??
      (await insertSocialUser(tx, {
        username: await newUsername(tx, identity, identity.email),
        email: identity.email,
        firstName: identity.givenName,
        lastName: identity.familyName,
        emailVerified: platformProvider,
      }));
    await linkAccount(tx, scope, target.id, app.id, identity.sub);
    return target;
  });
  if (!user.is_active || user.is_deleted) throw new AuthenticationFailedError('User account is disabled.');
  if (cutOff !== undefined) await untilPastCutOff(cutOff, () => runtime.now(), delay);
  return { pair: await runtime.tokens.issuePair(user), user };
}
