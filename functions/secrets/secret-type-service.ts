// The rules of secret types: a client-chosen slug, a name, and a JSON Schema that values of the type
// must satisfy. A schema change that existing secrets of the type would fail is refused, and a
// type still used by secrets cannot be deleted.
import type { Principal } from '#shared/auth/principal.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import { ConflictError, NotFoundError, ValidationError } from '#shared/errors.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { assertManagesSecrets } from './secret-access.ts';
import {
  deleteSecretType,
  findSecretType,
  insertSecretType,
  listSecretTypes,
  secretsOfType,
  updateSecretType,
  type Page,
  type SecretTypeRow,
} from './secret-repository.ts';
import type { CreateSecretTypeBody, ListSecretTypesQuery, ReplaceSecretTypeBody } from './secret-schemas.ts';
import { openSecretValue, type SecretsPorts } from './secret-values.ts';
import { InvalidSchemaError, validatorFor, valueProblems } from './value-schema.ts';

export interface SecretTypeServicePorts {
  db: Queryable;
}

const TAKEN_SLUG = 'A secret type with that slug already exists.';

async function checkedSchema(schema: unknown): Promise<unknown> {
  try {
    await validatorFor(schema);
    return schema;
  } catch (error) {
    if (error instanceof InvalidSchemaError) throw ValidationError.forFields({ schema: error.problems });
    throw error;
  }
}

export function listTypes(ports: SecretTypeServicePorts, site: Tenant, query: ListSecretTypesQuery): Promise<Page<SecretTypeRow>> {
  return listSecretTypes(ports.db, site, { search: query.search, page: toPageRequest(query) });
}

export async function existingType(ports: SecretTypeServicePorts, site: Tenant, slug: string): Promise<SecretTypeRow> {
  const type = await findSecretType(ports.db, site, slug);
  if (type === undefined) throw new NotFoundError('Secret type not found.');
  return type;
}

export async function createType(
  ports: SecretTypeServicePorts,
  site: Tenant,
  caller: Principal,
  body: CreateSecretTypeBody,
): Promise<SecretTypeRow> {
  await assertManagesSecrets(ports.db, site, caller);
  const schema = await checkedSchema(body.schema ?? {});
  if ((await findSecretType(ports.db, site, body.slug)) !== undefined) throw ValidationError.forFields({ slug: [TAKEN_SLUG] });
  try {
    return await insertSecretType(ports.db, site, { slug: body.slug, name: body.name, description: body.description ?? '', schema });
  } catch (error) {
    if (error instanceof UniqueViolationError) throw ValidationError.forFields({ slug: [TAKEN_SLUG] });
    throw error;
  }
}

export async function replaceType(
  ports: SecretsPorts,
  site: Tenant,
  caller: Principal,
  slug: string,
  body: ReplaceSecretTypeBody,
): Promise<SecretTypeRow> {
  await assertManagesSecrets(ports.db, site, caller);
  const type = await existingType(ports, site, slug);
  const schema = await checkedSchema(body.schema ?? {});
  if (JSON.stringify(schema) !== JSON.stringify(type.schema)) {
    const failing: string[] = [];
    for (const secret of await secretsOfType(ports.db, site, type.id)) {
      const value = await openSecretValue(ports, site, secret);
      if ((await valueProblems(schema, value)).length > 0)
        failing.push(secret.appSlug === null ? secret.key : `${secret.appSlug}/${secret.key}`);
    }
    if (failing.length > 0) {
      throw ValidationError.forFields({ schema: [`Existing secrets of this type do not satisfy the new schema: ${failing.join(', ')}.`] });
    }
  }
  return updateSecretType(ports.db, site, type.id, { name: body.name, description: body.description ?? '', schema });
}

export async function removeType(ports: SecretTypeServicePorts, site: Tenant, caller: Principal, slug: string): Promise<void> {
  await assertManagesSecrets(ports.db, site, caller);
  const type = await existingType(ports, site, slug);
  const users = await secretsOfType(ports.db, site, type.id);
  if (users.length > 0) {
    throw new ConflictError(`The secret type is used by ${users.length} secret(s); change or delete them first.`);
  }
  await deleteSecretType(ports.db, site, type.id);
}
