// The rules of secrets: values checked against their type's schema, sealed before they are stored,
// masked in lists and opened only for managers; `?app=` reads fall back to the site-level secret;
// every change moves the version one up and leaves a history entry without the value.
import { emptyPage } from '#shared/db/counted-page.ts';
import type { Principal } from '#shared/auth/principal.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import { NotFoundError, ValidationError } from '#shared/errors.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { assertManagesSecrets } from './secret-access.ts';
import {
  deleteSecret,
  findApp,
  findSecret,
  findSecretType,
  insertSecret,
  listSecrets,
  secretHistory,
  updateSecret,
  type AppRef,
  type HistoryRow,
  type Page,
  type SecretRow,
  type SecretTypeRow,
} from './secret-repository.ts';
import type { CreateSecretBody, HistoryQuery, ListSecretsQuery, ReplaceSecretBody } from './secret-schemas.ts';
import { openSecretValue, sealSecretValue, type SecretsPorts } from './secret-values.ts';
import { InvalidSchemaError, valueProblems } from './value-schema.ts';

export interface OpenedSecret {
  secret: SecretRow;
  value: unknown;
}

const TAKEN_KEY = 'A secret with this key already exists here.';

async function appByQuery(ports: SecretsPorts, site: Tenant, slug: string | undefined): Promise<AppRef | undefined> {
  if (slug === undefined) return undefined;
  const app = await findApp(ports.db, site, slug);
  if (app === undefined) throw new NotFoundError('App not found.');
  return app;
}

/** The type named in a body, checked to exist (400 on the field, not 404: the address is fine). */
async function typeByBody(ports: SecretsPorts, site: Tenant, slug: string | null | undefined): Promise<SecretTypeRow | null | undefined> {
  if (slug === undefined || slug === null) return slug;
  const type = await findSecretType(ports.db, site, slug);
  if (type === undefined) throw ValidationError.forFields({ secret_type: [`Unknown secret type "${slug}".`] });
  return type;
}

async function typeById(ports: SecretsPorts, site: Tenant, secret: SecretRow): Promise<SecretTypeRow | null> {
  if (secret.secretTypeSlug === null) return null;
  return (await findSecretType(ports.db, site, secret.secretTypeSlug)) ?? null;
}

async function assertSatisfies(type: SecretTypeRow | null, value: unknown): Promise<void> {
  if (type === null) return;
  let problems: string[];
  try {
    problems = await valueProblems(type.schema, value);
  } catch (error) {
    // A schema saved before its patterns had to run on the linear-time engine: the type needs fixing.
    if (error instanceof InvalidSchemaError) {
      throw ValidationError.forFields({
        secret_type: [`The schema of secret type "${type.slug}" cannot be used: ${error.message} Replace the type's schema.`],
      });
    }
    throw error;
  }
  if (problems.length > 0)
    throw ValidationError.forFields({ value: problems }, `The value does not satisfy the schema of secret type "${type.slug}".`);
}

function changer(caller: Principal) {
  return { userId: caller.id, username: caller.username };
}

export async function listMaskedSecrets(ports: SecretsPorts, site: Tenant, query: ListSecretsQuery): Promise<Page<SecretRow>> {
  const app = await appByQuery(ports, site, query.app);
  let secretTypeId: number | undefined;
  if (query.secret_type !== undefined) {
    const type = await findSecretType(ports.db, site, query.secret_type);
    if (type === undefined) return emptyPage(toPageRequest(query));
    secretTypeId = type.id;
  }
  return listSecrets(ports.db, site, { appId: app?.id, secretTypeId, search: query.search, page: toPageRequest(query) });
}

async function existingSecret(ports: SecretsPorts, site: Tenant, key: string, appSlug: string | undefined): Promise<SecretRow> {
  const app = await appByQuery(ports, site, appSlug);
  const secret = await findSecret(ports.db, site, key, app?.id ?? null);
  if (secret === undefined) throw new NotFoundError('Secret not found.');
  return secret;
}

/** With `?app=`, the app's secret when it has one, else the site-level secret of the same key. */
export async function readSecret(
  ports: SecretsPorts,
  site: Tenant,
  caller: Principal,
  key: string,
  appSlug: string | undefined,
): Promise<OpenedSecret> {
  await assertManagesSecrets(ports.db, site, caller);
  const app = await appByQuery(ports, site, appSlug);
  const secret =
    (app === undefined ? undefined : await findSecret(ports.db, site, key, app.id)) ?? (await findSecret(ports.db, site, key, null));
  if (secret === undefined) throw new NotFoundError('Secret not found.');
  return { secret, value: await openSecretValue(ports, site, secret) };
}

export async function createSecret(ports: SecretsPorts, site: Tenant, caller: Principal, body: CreateSecretBody): Promise<OpenedSecret> {
  await assertManagesSecrets(ports.db, site, caller);
  let appId: number | null = null;
  if (body.app !== undefined && body.app !== null) {
    const app = await findApp(ports.db, site, body.app);
    if (app === undefined) throw ValidationError.forFields({ app: [`Unknown app "${body.app}".`] });
    appId = app.id;
  }
  const type = (await typeByBody(ports, site, body.secret_type)) ?? null;
  await assertSatisfies(type, body.value);
  if ((await findSecret(ports.db, site, body.key, appId)) !== undefined) throw ValidationError.forFields({ key: [TAKEN_KEY] });
  const sealed = await sealSecretValue(ports, site, body.key, appId, body.value);
  try {
    await insertSecret(
      ports.db,
      site,
      { key: body.key, appId, secretTypeId: type?.id ?? null, description: body.description ?? '', sealed },
      changer(caller),
    );
  } catch (error) {
    if (error instanceof UniqueViolationError) throw ValidationError.forFields({ key: [TAKEN_KEY] });
    throw error;
  }
  return { secret: (await findSecret(ports.db, site, body.key, appId))!, value: body.value };
}

export async function replaceSecret(
  ports: SecretsPorts,
  site: Tenant,
  caller: Principal,
  key: string,
  appSlug: string | undefined,
  body: ReplaceSecretBody,
): Promise<OpenedSecret> {
  await assertManagesSecrets(ports.db, site, caller);
  const existing = await existingSecret(ports, site, key, appSlug);
  const sent = await typeByBody(ports, site, body.secret_type);
  const type = sent === undefined ? await typeById(ports, site, existing) : sent;
  await assertSatisfies(type, body.value);
  const sealed = await sealSecretValue(ports, site, existing.key, existing.appId, body.value);
  await updateSecret(
    ports.db,
    site,
    existing,
    { secretTypeId: type?.id ?? null, description: body.description ?? existing.description, sealed },
    changer(caller),
  );
  const updated = await findSecret(ports.db, site, existing.key, existing.appId);
  if (updated === undefined) throw new NotFoundError('Secret not found.');
  return { secret: updated, value: body.value };
}

export async function removeSecret(
  ports: SecretsPorts,
  site: Tenant,
  caller: Principal,
  key: string,
  appSlug: string | undefined,
): Promise<void> {
  await assertManagesSecrets(ports.db, site, caller);
  const existing = await existingSecret(ports, site, key, appSlug);
  if (!(await deleteSecret(ports.db, site, existing, changer(caller)))) throw new NotFoundError('Secret not found.');
}

/** The audit trail of one key at one scope; it outlives a deleted secret. */
export async function historyOf(ports: SecretsPorts, site: Tenant, key: string, query: HistoryQuery): Promise<Page<HistoryRow>> {
  const app = await appByQuery(ports, site, query.app);
  const page: PageRequest = toPageRequest(query);
  const history = await secretHistory(ports.db, site, key, app?.id ?? null, page);
  // No row on the first page: the key has no history at all, whatever `_count` asked.
  if (history.rows.length === 0 && page.page === 1) throw new NotFoundError('Secret not found.');
  return history;
}
