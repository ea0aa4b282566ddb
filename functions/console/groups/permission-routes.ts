// The permission catalogue: read-only, for any signed-in user.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { defineRoute } from '#shared/http/route.ts';
import { groupPorts } from './group-routes.ts';
import { permissionRecord, permissionSchema } from './group-representation.ts';
import { idParams, listPermissionsQuery } from './group-schemas.ts';
import { listPermissionCatalogue, permissionDetail } from './group-service.ts';

const common = { consoleAlias: true, host: 'platform', errorStyle: 'generic', access: 'user' } as const;

export const listPermissionsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/permissions/',
  summary: 'List permissions, optionally of one model (organization, site, user)',
  query: listPermissionsQuery,
  envelope: 'C',
  response: permissionSchema,
  handler: async (ctx, { query }) => {
    const page = await listPermissionCatalogue(groupPorts(ctx), query);
    return paged(page.rows.map(permissionRecord), page.total, toPageRequest(query));
  },
});

export const getPermissionRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/permissions/{id}/',
  summary: 'Permission detail',
  params: idParams,
  envelope: 'bare',
  response: permissionSchema,
  handler: async (ctx, { params }) => permissionRecord(await permissionDetail(groupPorts(ctx), params.id)),
});
