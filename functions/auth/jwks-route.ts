// The public keys that verify access tokens, for services that check tokens themselves.
import { defineRoute } from '#shared/http/route.ts';
import { reply } from '#shared/http/reply.ts';

export const jwksRoute = defineRoute({
  method: 'GET',
  path: '/.well-known/jwks.json',
  summary: 'JSON Web Key Set of the token signing keys',
  access: 'public',
  host: 'any',
  envelope: 'bare',
  handler: async (ctx) => reply(200, ctx.runtime.tokens.jwks(), { 'Cache-Control': 'public, max-age=300' }),
});
