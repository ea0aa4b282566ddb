// Request shapes of the apps and datasources endpoints.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { jsonObject } from '#shared/http/json-object.ts';

const name = lazySchema(() =>
  z.string().trim().min(1, 'This field may not be blank.').max(255, 'Ensure this field has no more than 255 characters.'),
);
const description = lazySchema(() => z.string().max(2000, 'Ensure this field has no more than 2000 characters.'));
const SLUG_PATTERN = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;
const slug = lazySchema(() =>
  z
    .string()
    .max(100, 'Ensure this field has no more than 100 characters.')
    .regex(SLUG_PATTERN, 'Enter a valid slug: lower-case letters and digits, words joined by - or _.'),
);

export const appParams = lazySchema(() => z.object({ app_slug: z.string().min(1).max(100) }));

export const createAppBody = lazySchema(() => z.object({ name: name(), description: description().optional() }));
export type CreateAppBody = z.infer<ReturnType<typeof createAppBody>>;
export const replaceAppBody = lazySchema(() => createAppBody());
export const patchAppBody = lazySchema(() => z.object({ name: name().optional(), description: description().optional() }));
export type PatchAppBody = z.infer<ReturnType<typeof patchAppBody>>;

export const PROVIDER_TYPES = ['flat_table', 'jsonb', 'mongodb'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** Keys per DECISIONS: `allow_data_loss` for all; `mongodb` also `database`, `connection_secret`. */
// As sent, so a `__proto__` key is refused like any unknown key instead of vanishing in a copy.
const providerConfig = jsonObject();

export const datasourceParams = lazySchema(() => appParams().extend({ datasource_slug: z.string().min(1).max(100) }));

export const createDatasourceBody = lazySchema(() =>
  z.object({
    name: name(),
    slug: slug().optional(),
    provider_type: z.enum(PROVIDER_TYPES, { message: `Choose one of: ${PROVIDER_TYPES.join(', ')}.` }),
    provider_config: providerConfig.optional(),
    description: description().optional(),
  }),
);
export type CreateDatasourceBody = z.infer<ReturnType<typeof createDatasourceBody>>;

/** PUT and PATCH: the provider type is fixed once tables may exist; the rest may change. */
export const patchDatasourceBody = lazySchema(() =>
  z.object({
    name: name().optional(),
    slug: slug().optional(),
    provider_type: z.enum(PROVIDER_TYPES, { message: `Choose one of: ${PROVIDER_TYPES.join(', ')}.` }).optional(),
    provider_config: providerConfig.optional(),
    description: description().optional(),
  }),
);
export type PatchDatasourceBody = z.infer<ReturnType<typeof patchDatasourceBody>>;
export const replaceDatasourceBody = lazySchema(() => createDatasourceBody());
