// The public keys that verify access tokens, for services that check tokens themselves.
import * as z from 'zod';
import { defineRoute } from '#shared/http/route.ts';
import { reply } from '#shared/http/reply.ts';

export const jwksRoute = defineRoute({
  method: 'GET',
  path: '/.well-known/jwks.json',
  summary: 'JSON Web Key Set of the token signing keys',
  access: 'public',
  host: 'any',
  envelope: 'bare',
  // Each key is a public JWK (RFC 7517): kty, kid, alg, use and the key type's own members.
  response: () => z.strictObject({ keys: z.array(z.record(z.string(), z.unknown())) }).meta({ id: 'JsonWebKeySet' }),
  handler: async (ctx) => reply(200, ctx.runtime.tokens.jwks(), { 'Cache-Control': 'public, max-age=300' }),
});
