// Page parameters of the console lists (DECISIONS): page ≥ 1 default 1; page_size default 20,
// values over the maximum are clamped; anything that is not a whole number is a 400. Every paged
// list, console and records alike, also takes `_count` (exact | planned | none), parsed here.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';

/** `_count`: the exact total (the spec's), the planner's estimate, or none at all. */
export const COUNT_MODES = ['exact', 'planned', 'none'] as const;
export type CountMode = (typeof COUNT_MODES)[number];
export const COUNT_MODE_PROBLEM = `expects one of ${COUNT_MODES.join(', ')}`;

/** `_count` as given (absent means `exact`), or undefined when it names no mode. */
export function countModeOf(raw: string | undefined): CountMode | undefined {
  if (raw === undefined) return 'exact';
  return COUNT_MODES.find((candidate) => candidate === raw);
}

export interface PageRequest {
  page: number;
  pageSize: number;
  /** Absent means `exact`. */
  count?: CountMode;
}

const wholeNumber = lazySchema(() => z.string().regex(/^\d+$/, 'A whole number is required.').transform(Number));

/**
 * The last page number a list accepts, as the record lists' nine digits: (page - 1) × page_size
 * stays an exact integer for the statement's OFFSET, and no table is that long.
 */
const LAST_PAGE = 999_999_999;

export function pageQuery(defaultSize = 20, maxSize = 100) {
  return {
    page: wholeNumber()
      .pipe(z.number().int().min(1, 'Pages start at 1.').max(LAST_PAGE, `Pages stop at ${LAST_PAGE}.`))
      .optional()
      .default(1),
    page_size: wholeNumber()
      .pipe(z.number().int().min(1, 'Ensure this value is at least 1.'))
      .transform((size) => Math.min(size, maxSize))
      .optional()
      .default(defaultSize),
    // A repeated `_count` never gets here (parse-request.ts refuses repeated names). Absent, the
    // member stays undefined and `toPageRequest` reads it as `exact`.
    _count: z
      .unknown()
      .transform((raw, ctx) => {
        const mode = typeof raw === 'string' ? countModeOf(raw) : undefined;
        if (mode === undefined) ctx.addIssue({ code: 'custom', message: COUNT_MODE_PROBLEM });
        return mode ?? 'exact';
      })
      .optional(),
  };
}

export function toPageRequest(query: { page: number; page_size: number; _count?: CountMode }): PageRequest {
  return { page: query.page, pageSize: query.page_size, count: query._count ?? 'exact' };
}

export function pageOffset(page: PageRequest): number {
  return (page.page - 1) * page.pageSize;
}
