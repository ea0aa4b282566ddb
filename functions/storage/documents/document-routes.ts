// The document-library actions of objects (`/view/`, `/edit/`) and the loader page they send
// browsers to, with the loader's ticket redemption. View is open to anonymous callers (public
// objects); edit needs a signed-in caller. The loader routes are public and host-independent: the
// ticket names the site.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { outcome, type Outcome } from '#shared/http/answers.ts';
import { reply } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import type { DocumentLink } from '#shared/storage/document-library/document-sharing.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { objectParams } from '../objects/object-schemas.ts';
import { storageEnv } from '../storage-env.ts';
import type { DocumentAction } from './document-access-plan.ts';
import type { GrantedDocument } from './document-access-service.ts';
import { acceptsJson, GRANT_PATH, LOADER_PATH, openDocument, redeemLoaderTicket } from './document-requests.ts';
import { loaderPage } from './loader-page.ts';

const OBJECT = '/api/apps/{app_slug}/storage/buckets/{bucket_slug}/objects/{key+}';

/** The wire shape of a DocumentLink: the URL to open the document at, and what it allows. */
const documentLinkSchema = lazySchema(() =>
  z.strictObject({ url: z.string(), mode: z.enum(['view', 'edit']) }).meta({ id: 'DocumentLink' }),
);

/** The route's Envelope A around the link, with a message saying what was granted. */
function grantAnswer({ link, anonymous }: GrantedDocument): Outcome<DocumentLink> {
  const message = link.mode === 'edit' ? 'Edit access granted.' : anonymous ? 'Anonymous view link ready.' : 'View access granted.';
  return outcome(link, { message });
}

async function documentAction(ctx: RequestContext, params: z.infer<ReturnType<typeof objectParams>>, action: DocumentAction) {
  const env = { ...storageEnv(ctx), tokens: ctx.runtime.tokens };
  const opened = await openDocument(env, params, action, acceptsJson(ctx.request.headers.accept) ? 'json' : 'loader');
  return 'loaderUrl' in opened ? reply(302, undefined, { Location: opened.loaderUrl }) : grantAnswer(opened.granted);
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
  response: documentLinkSchema,
  message: 'View access granted.',
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
  response: documentLinkSchema,
  message: 'Edit access granted.',
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
  body: () => z.strictObject({ ticket: z.string().min(1).max(8192) }),
  envelope: 'A',
  response: documentLinkSchema,
  message: 'View access granted.',
  handler: async (ctx, { body }) =>
    grantAnswer(await redeemLoaderTicket(ctx.runtime.db, ctx.runtime.tokens, ctx.runtime.documentLibrary, body.ticket)),
});
