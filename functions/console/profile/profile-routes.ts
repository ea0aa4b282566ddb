// The profile endpoints: the caller's own account.
import { setTimeout as delay } from 'node:timers/promises';
import type { RequestContext } from '#shared/http/request-context.ts';
import { defineRoute } from '#shared/http/route.ts';
import { passwordChangedRecord, passwordChangedSchema, profileRecord, profileSchema } from './profile-representation.ts';
import { changePasswordBody, profileChanges } from './profile-schemas.ts';
import { changePassword, changeProfile, ownAccount, type ProfileServicePorts } from './profile-service.ts';

function ports(ctx: RequestContext): ProfileServicePorts {
  return {
    db: ctx.runtime.db,
    passwordCost: ctx.runtime.config.passwordScryptCost,
    now: ctx.runtime.now,
    sleep: async (ms) => {
      await delay(ms);
    },
    issueTokens: (user) => ctx.runtime.tokens.issuePair(user),
  };
}

const common = { host: 'any', errorStyle: 'generic', access: 'user' } as const;

export const getProfileRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/profile/',
  summary: "The caller's own account",
  response: profileSchema,
  envelope: 'bare',
  handler: async (ctx) => profileRecord(await ownAccount(ports(ctx), ctx.user)),
});

export const updateProfileRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: '/api/profile/',
  summary: "Change the caller's first_name, last_name and email",
  body: profileChanges,
  response: profileSchema,
  envelope: 'bare',
  handler: async (ctx, { body }) => profileRecord(await changeProfile(ports(ctx), ctx.user, body)),
});

export const changePasswordRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/profile/change-password/',
  summary: 'Change the password with the current one; earlier tokens stop working, a fresh pair is returned',
  body: changePasswordBody,
  response: passwordChangedSchema,
  envelope: 'bare',
  handler: async (ctx, { body }) => passwordChangedRecord(await changePassword(ports(ctx), ctx.user, body)),
});
