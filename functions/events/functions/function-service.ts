// The rules of an app's functions: create (with a fresh signing secret, stored sealed), read (the
// secret opened only for callers who may manage functions, function-access.ts), change, delete, and
// list their invocation records. A webhook URL naming a refused address is a 400 at once; names
// that resolve to one are refused when the call is made.
import { randomBytes } from 'node:crypto';
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { NotFoundError, ValidationError } from '#shared/errors.ts';
import { openSigningSecret, sealSigningSecret } from '#shared/events/signing-secrets.ts';
import { assertWebhookUrl } from '#shared/events/webhook-call.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { slugFrom, uniqueSlug } from '#shared/text/slugs.ts';
import {
  deleteFunction,
  findApp,
  findFunction,
  functionSlugsLike,
  insertFunction,
  listFunctions,
  listInvocations,
  nextFunctionId,
  updateFunction,
  type AppRef,
  type FunctionRow,
} from './function-repository.ts';
import type { CreateFunctionBody, PatchFunctionBody } from './function-schemas.ts';
import { assertManagesFunctions, managesFunctions } from './function-access.ts';

export interface FunctionsEnv {
  db: Queryable;
  site: Tenant;
  user: Principal;
  allowPrivateNetworks: boolean;
  secretsKey: () => Promise<Buffer>;
}

/**
 * A function as a caller reads it: the signing secret in clear for callers who may manage it (they
 * configure the receiver that verifies the calls), null for everyone else.
 */
export type OpenedFunction = Omit<FunctionRow, 'storedSecret'> & { signingSecret: string | null };

/** `mayManage`: from managesFunctions; the secret is not even opened for other callers. */
async function opened(env: FunctionsEnv, fn: FunctionRow, mayManage: boolean): Promise<OpenedFunction> {
  const { storedSecret, ...rest } = fn;
  const signingSecret = mayManage ? await openSigningSecret(env.secretsKey, env.site.schemaName, fn.id, storedSecret) : null;
  return { ...rest, signingSecret };
}

async function appOf(env: FunctionsEnv, appSlug: string): Promise<AppRef> {
  const app = await findApp(env.db, env.site, appSlug);
  if (app === undefined) throw new NotFoundError('App not found.');
  return app;
}

async function functionOf(env: FunctionsEnv, appSlug: string, slug: string): Promise<FunctionRow> {
  const app = await appOf(env, appSlug);
  const fn = await findFunction(env.db, env.site, app.id, slug);
  if (fn === undefined) throw new NotFoundError('Function not found.');
  return fn;
}

function checkWebhookUrl(env: FunctionsEnv, url: string): void {
  try {
    assertWebhookUrl(url, env.allowPrivateNetworks);
  } catch (error) {
    throw ValidationError.forFields({ webhook_url: [(error as Error).message] });
  }
}

export async function listAppFunctions(env: FunctionsEnv, appSlug: string, page: PageRequest) {
  const app = await appOf(env, appSlug);
  const { rows, total } = await listFunctions(env.db, env.site, app.id, page);
  const mayManage = await managesFunctions(env);
  return { rows: await Promise.all(rows.map((fn) => opened(env, fn, mayManage))), total };
}

export async function getFunction(env: FunctionsEnv, appSlug: string, slug: string): Promise<OpenedFunction> {
  const fn = await functionOf(env, appSlug, slug);
  return opened(env, fn, await managesFunctions(env));
}

export async function createFunction(env: FunctionsEnv, appSlug: string, body: CreateFunctionBody): Promise<OpenedFunction> {
  await assertManagesFunctions(env);
  const app = await appOf(env, appSlug);
  checkWebhookUrl(env, body.webhook_url);
  if (body.slug !== undefined && (await findFunction(env.db, env.site, app.id, body.slug)) !== undefined) {
    throw ValidationError.forFields({ slug: ['A function with this slug already exists in the app.'] });
  }
  const slug =
    body.slug ??
    (await uniqueSlug((await slugFrom(body.name, 100)) || 'function', (base) => functionSlugsLike(env.db, env.site, app.id, base), {
      maxLength: 100,
    }));
  const id = await nextFunctionId(env.db, env.site);
  const secret = `whsec_${randomBytes(32).toString('base64url')}`;
  await insertFunction(env.db, env.site, id, {
    appId: app.id,
    name: body.name,
    slug,
    webhookUrl: body.webhook_url,
    sealedSecret: sealSigningSecret(await env.secretsKey(), env.site.schemaName, id, secret),
    timeoutSeconds: body.timeout_seconds,
    isActive: body.is_active,
    createdBy: env.user.id,
  });
  return opened(env, (await findFunction(env.db, env.site, app.id, slug))!, true);
}

export async function patchFunction(env: FunctionsEnv, appSlug: string, slug: string, body: PatchFunctionBody): Promise<OpenedFunction> {
  await assertManagesFunctions(env);
  const fn = await functionOf(env, appSlug, slug);
  if (body.webhook_url !== undefined) checkWebhookUrl(env, body.webhook_url);
  await updateFunction(env.db, env.site, fn.id, {
    name: body.name ?? fn.name,
    webhookUrl: body.webhook_url ?? fn.webhookUrl,
    timeoutSeconds: body.timeout_seconds ?? fn.timeoutSeconds,
    isActive: body.is_active ?? fn.isActive,
  });
  return opened(env, (await findFunction(env.db, env.site, fn.appId, slug))!, true);
}

export async function removeFunction(env: FunctionsEnv, appSlug: string, slug: string): Promise<void> {
  await assertManagesFunctions(env);
  const fn = await functionOf(env, appSlug, slug);
  await deleteFunction(env.db, env.site, fn.id);
}

export async function functionInvocations(env: FunctionsEnv, appSlug: string, slug: string, page: PageRequest) {
  const fn = await functionOf(env, appSlug, slug);
  return listInvocations(env.db, env.site, fn.id, page);
}
