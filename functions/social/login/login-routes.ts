// Programmatic social sign-in (DECISIONS): GET /api/auth/{provider}/redirect/ answers 302 to the
// provider (or 200 {authorization_url, state} to Accept: application/json); POST
// /api/auth/{provider}/token/ exchanges {code, state, redirect_uri} for {access, refresh, user}.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { reply } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import { socialScope } from '../social-scope.ts';
import { finishSocialLogin, startSocialLogin } from './login-service.ts';

const providerParams = lazySchema(() => z.object({ provider: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'Not a provider name.') }));
/** The tokens of a finished sign-in and who they are for. */
const socialSignInSchema = lazySchema(() =>
  z
    .strictObject({
      access: z.string(),
      refresh: z.string(),
      user: z.strictObject({ uuid: z.string(), username: z.string(), email: z.string() }),
    })
    .meta({ id: 'SocialSignIn' }),
);
const redirectUri = lazySchema(() => z.url({ protocol: /^https?$/ }).max(2000));

export const socialRedirectRoute = defineRoute({
  method: 'GET',
  path: '/api/auth/{provider}/redirect/',
  summary: "Start a sign-in: the provider's authorization URL with a one-time state",
  access: 'public',
  host: 'any',
  countsAsLogin: true,
  params: providerParams,
  query: () => z.object({ redirect_uri: redirectUri() }),
  response: () =>
    z.strictObject({ authorization_url: z.string(), state: z.string() }).meta({ description: 'To Accept: application/json; else 302' }),
  envelope: 'bare',
  handler: async (ctx, { params, query }) => {
    const started = await startSocialLogin(ctx.runtime, await socialScope(ctx), params.provider, query.redirect_uri);
    if (/\bapplication\/json\b/i.test(ctx.request.headers.accept ?? '')) {
      return { authorization_url: started.authorizationUrl, state: started.state };
    }
    return reply(302, undefined, { Location: started.authorizationUrl });
  },
});

export const socialTokenRoute = defineRoute({
  method: 'POST',
  path: '/api/auth/{provider}/token/',
  summary: "Finish a sign-in: the provider's code and state for the platform's tokens",
  access: 'public',
  host: 'any',
  countsAsLogin: true,
  params: providerParams,
  // `iss` (RFC 9207) is optional: the callback's own, passed on where the client has it.
  body: () =>
    z.strictObject({
      code: z.string().min(1).max(4096),
      state: z.string().min(1).max(128),
      redirect_uri: redirectUri(),
      iss: z.string().max(2000).optional(),
    }),
  response: socialSignInSchema,
  envelope: 'bare',
  handler: async (ctx, { params, body }) => {
    const { pair, user } = await finishSocialLogin(ctx.runtime, await socialScope(ctx), params.provider, body);
    return {
      access: pair.access.token,
      refresh: pair.refresh.token,
      user: { uuid: user.uuid, username: user.username, email: user.email },
    };
  },
});
