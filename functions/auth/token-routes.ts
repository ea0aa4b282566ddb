// The JWT endpoints: obtain (plain and console form), refresh, verify and blacklist.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { defineRoute } from '#shared/http/route.ts';
import { blacklistTokens, obtainTokens, refreshTokens, verifyToken } from './token-service.ts';

// Bounded so an oversized password cannot make the KDF the bottleneck of the login endpoint.
const credentials = lazySchema(() => z.object({ username: z.string().min(1).max(150), password: z.string().min(1).max(1024) }));
const refreshBody = lazySchema(() => z.object({ refresh: z.string().min(1) }));
const verifyBody = lazySchema(() => z.object({ token: z.string().min(1) }));

// The answers, for the OpenAPI document and the typed client generated from it.
const tokenPair = lazySchema(() => z.object({ access: z.string(), refresh: z.string() }));
const signedInUser = lazySchema(() => z.object({ uuid: z.string(), username: z.string(), email: z.string() }));

export const obtainTokenRoute = defineRoute({
  method: 'POST',
  path: '/api/auth/jwt/token/',
  summary: 'Obtain an access and a refresh token',
  access: 'public',
  host: 'any',
  countsAsLogin: true,
  body: credentials,
  envelope: 'bare',
  response: tokenPair,
  handler: async (ctx, { body }) => {
    const { pair } = await obtainTokens(ctx.runtime, body.username, body.password);
    return { access: pair.access.token, refresh: pair.refresh.token };
  },
});

export const obtainConsoleTokenRoute = defineRoute({
  method: 'POST',
  path: '/api/cloud/auth/jwt/token/',
  summary: 'Obtain tokens and the signed-in user (console)',
  access: 'public',
  host: 'any',
  countsAsLogin: true,
  body: credentials,
  envelope: 'bare',
  response: () => tokenPair().extend({ user: signedInUser() }),
  handler: async (ctx, { body }) => {
    const { pair, user } = await obtainTokens(ctx.runtime, body.username, body.password);
    return { access: pair.access.token, refresh: pair.refresh.token, user };
  },
});

export const refreshTokenRoute = defineRoute({
  method: 'POST',
  path: '/api/cloud/auth/jwt/token/refresh/',
  consoleAlias: true,
  summary: 'Exchange a refresh token for a new pair; the old refresh token is blacklisted',
  access: 'public',
  host: 'any',
  body: refreshBody,
  envelope: 'bare',
  response: tokenPair,
  handler: async (ctx, { body }) => {
    const pair = await refreshTokens(ctx.runtime, body.refresh);
    return { access: pair.access.token, refresh: pair.refresh.token };
  },
});

export const verifyTokenRoute = defineRoute({
  method: 'POST',
  path: '/api/cloud/auth/jwt/token/verify/',
  consoleAlias: true,
  summary: 'Check that a token is valid, unexpired and not blacklisted',
  access: 'public',
  host: 'any',
  body: verifyBody,
  envelope: 'bare',
  response: () => z.object({ token_type: z.enum(['access', 'refresh']), expires_at: z.string() }),
  handler: async (ctx, { body }) => {
    const claims = await verifyToken(ctx.runtime, body.token);
    return { token_type: claims.type, expires_at: claims.expiresAt.toISOString() };
  },
});

export const blacklistTokenRoute = defineRoute({
  method: 'POST',
  path: '/api/cloud/auth/jwt/token/blacklist/',
  consoleAlias: true,
  summary: 'Log out: blacklist the refresh token, and the bearer access token when one is sent',
  access: 'optional',
  host: 'any',
  body: refreshBody,
  envelope: 'bare',
  response: () => z.object({ message: z.string() }),
  handler: async (ctx, { body }) => {
    await blacklistTokens(ctx.runtime, body.refresh, ctx.principal);
    return { message: 'Token blacklisted' };
  },
});
