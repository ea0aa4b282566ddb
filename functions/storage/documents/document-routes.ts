// The document-library actions of objects (`/view/`, `/edit/`) and the loader page they send
// browsers to, with the loader's ticket redemption. View is open to anonymous callers (public
// objects); edit needs a signed-in caller. The loader routes are public and host-independent: the
// ticket names the site.
import * as z from 'zod';
import { defineRoute } from '#shared/http/route.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { objectParams } from '../objects/object-schemas.ts';
import { storageEnv } from '../storage-env.ts';
import type { DocumentAction } from './document-access-plan.ts';
import { acceptsJson, GRANT_PATH, LOADER_PATH, openDocument, redeemLoaderTicket } from './document-requests.ts';
import { loaderPage } from './loader-page.ts';

const OBJECT = '/api/apps/{app_slug}/storage/buckets/{bucket_slug}/objects/{key+}';

function documentAction(ctx: RequestContext, params: z.infer<typeof objectParams>, action: DocumentAction) {
  const env = { ...storageEnv(ctx), tokens: ctx.runtime.tokens };
  return openDocument(env, params, action, acceptsJson(ctx.request.headers.accept) ? 'json' : 'loader');
}

export const viewDocumentRoute = defineRoute({
  method: 'GET',
  path: `${OBJECT}/view/`,
  summary: 'Grant or refresh view access to a document-library object and answer its URL (JSON), or redirect to the loader',
  host: 'tenant',
  access: 'optional',
  errorStyle: 'generic',
  params: objectParams,
  envelope: 'A',
  handler: (ctx, { params }) => documentAction(ctx, params, 'view'),
});

export const editDocumentRoute = defineRoute({
  method: 'GET',
  path: `${OBJECT}/edit/`,
  summary: 'Grant or refresh restricted edit access to an Office document and answer its URL (JSON), or redirect to the loader',
  host: 'tenant',
  access: 'user',
  errorStyle: 'generic',
  params: objectParams,
  envelope: 'A',
  handler: (ctx, { params }) => documentAction(ctx, params, 'edit'),
});

export const documentLoaderRoute = defineRoute({
  method: 'GET',
  path: LOADER_PATH,
  summary: 'The page that redeems a document ticket in the background, then opens the document',
  host: 'any',
  access: 'public',
  errorStyle: 'generic',
  envelope: 'none',
  handler: async () => loaderPage(GRANT_PATH),
});

export const redeemTicketRoute = defineRoute({
  method: 'POST',
  path: GRANT_PATH,
  summary: "Perform a loader ticket's grant (once) and answer the document URL",
  host: 'any',
  access: 'public',
  errorStyle: 'generic',
  body: z.strictObject({ ticket: z.string().min(1).max(8192) }),
  envelope: 'A',
  handler: (ctx, { body }) => redeemLoaderTicket(ctx.runtime.db, ctx.runtime.tokens, ctx.runtime.documentLibrary, body.ticket),
});
