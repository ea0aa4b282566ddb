// Page parameters of the console lists (DECISIONS): page ≥ 1 default 1; page_size default 20,
// values over the maximum are clamped; anything that is not a whole number is a 400.
import * as z from 'zod';

export interface PageRequest {
  page: number;
  pageSize: number;
}

const wholeNumber = z.string().regex(/^\d+$/, 'A whole number is required.').transform(Number);

export function pageQuery(defaultSize = 20, maxSize = 100) {
  return {
    page: wholeNumber.pipe(z.number().int().min(1, 'Pages start at 1.')).optional().default(1),
    page_size: wholeNumber
      .pipe(z.number().int().min(1, 'Ensure this value is at least 1.'))
      .transform((size) => Math.min(size, maxSize))
      .optional()
      .default(defaultSize),
  };
}

export function toPageRequest(query: { page: number; page_size: number }): PageRequest {
  return { page: query.page, pageSize: query.page_size };
}

export function pageOffset(page: PageRequest): number {
  return (page.page - 1) * page.pageSize;
}
