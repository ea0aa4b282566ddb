// Input shapes of the frontend worker endpoints: the create form's fields, the PATCH body, list
// and availability queries, path parameters.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { pageQuery } from '#shared/http/pagination.ts';
import { flagQuery } from '#shared/http/query-params.ts';

/** The availability route's segment under /api/frontend_workers/; no worker may take it as its slug. */
export const AVAILABILITY_SEGMENT = 'check-subdomain-availability';
/** Fixed segments of the worker routes: a worker with one of them as slug could never be reached. */
export const RESERVED_WORKER_SLUGS: ReadonlySet<string> = new Set([AVAILABILITY_SEGMENT]);

const slug = lazySchema(() =>
  z
    .string()
    .regex(/^[a-z0-9]([a-z0-9-]{0,98}[a-z0-9])?$/, 'Use lowercase letters, digits and hyphens.')
    .refine((value) => !RESERVED_WORKER_SLUGS.has(value), 'This slug is reserved for a route under /api/frontend_workers/.'),
);
const wholeNumber = lazySchema(() =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'A whole number is required.')
    .transform(Number),
);

export const workerParams = lazySchema(() => z.object({ slug: z.string().min(1).max(100) }));

export const buildParams = lazySchema(() => z.object({ slug: z.string().min(1).max(100), uuid: z.uuid('Not a valid UUID.') }));

/** The text fields of the create form (multipart, so every value arrives as text). */
export const createWorkerFields = lazySchema(() =>
  z.object({
    name: z.string().trim().min(1).max(255),
    subdomain_input: z.string().min(1).max(63),
    slug: slug().optional(),
    is_internal: flagQuery().optional().default(true),
    domain: z.string().max(253).optional(),
    app: wholeNumber().optional(),
  }),
);

export const patchWorkerBody = lazySchema(() =>
  z.strictObject({
    name: z.string().trim().min(1).max(255).optional(),
    subdomain_input: z.string().min(1).max(63).optional(),
    is_internal: z.boolean().optional(),
    domain: z.string().max(253).nullable().optional(),
  }),
);
export type PatchWorkerBody = z.infer<ReturnType<typeof patchWorkerBody>>;

export const listWorkersQuery = lazySchema(() =>
  z.object({
    search: z.string().max(255).optional(),
    ordering: z.enum(['created_at', '-created_at', 'updated_at', '-updated_at']).optional().default('-created_at'),
    app: wholeNumber().optional(),
    ...pageQuery(),
  }),
);
export type ListWorkersQuery = z.infer<ReturnType<typeof listWorkersQuery>>;

export const availabilityQuery = lazySchema(() =>
  z.object({
    subdomain: z.string().max(63),
    exclude_slug: z.string().max(100).optional(),
    is_internal: flagQuery().optional().default(true),
    domain: z.string().max(253).optional(),
  }),
);
export type AvailabilityQuery = z.infer<ReturnType<typeof availabilityQuery>>;
