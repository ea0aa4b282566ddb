// The response envelopes of the spec, success and error, built in one place so every group answers
// in exactly the same shapes.
import type { AppError } from '#shared/errors.ts';
import type { RequestContext } from './request-context.ts';
import type { ErrorStyle } from './route.ts';
import type { ListTotal } from '#shared/db/counted-page.ts';
import type { PageRequest } from './pagination.ts';

export interface EnvelopeA<T> {
  status: 'success';
  message: string;
  data: T;
  total?: number | null;
  total_is_estimate?: boolean;
  pagination?: { page: number; page_size: number; has_next: boolean; has_previous: boolean };
}

export interface EnvelopeB<T> {
  success: boolean;
  message: string;
  status_code?: number;
  data?: T;
}

export interface PageB<T> extends EnvelopeB<T[]> {
  total: number | null;
  page: number;
  page_size: number;
  total_pages: number | null;
  total_is_estimate?: boolean;
  /** Under `_count=planned|none`, whether a page follows (the spec's members cannot tell without a total). */
  has_next?: boolean;
}

/** Envelope C, the plain page of the console lists. */
export interface PageC<T> {
  count: number | null;
  total_is_estimate?: boolean;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** `_count=planned` answers say whether the total is the planner's estimate; other modes say nothing. */
function estimateMember(total: ListTotal, page: PageRequest): { total_is_estimate?: boolean } {
  return page.count === 'planned' ? { total_is_estimate: total.estimated } : {};
}

/** Whether a page follows: from the exact total as the spec has it, else from the look-ahead row. */
function hasNext(total: ListTotal, page: PageRequest): boolean {
  return total.value !== null && !total.estimated ? page.page * page.pageSize < total.value : total.more;
}

export function envelopeA<T>(data: T, message: string): EnvelopeA<T> {
  return { status: 'success', message, data };
}

export function pageA<T>(items: T[], total: ListTotal, page: PageRequest, message: string): EnvelopeA<T[]> {
  return {
    status: 'success',
    message,
    data: items,
    total: total.value,
    ...estimateMember(total, page),
    pagination: {
      page: page.page,
      page_size: page.pageSize,
      has_next: hasNext(total, page),
      has_previous: page.page > 1,
    },
  };
}

export function envelopeB<T>(data: T, message: string, statusCode = 200): EnvelopeB<T> {
  return { success: true, message, status_code: statusCode, data };
}

export function pageB<T>(items: T[], total: ListTotal, page: PageRequest, message: string): PageB<T> {
  return {
    success: true,
    message,
    data: items,
    total: total.value,
    page: page.page,
    page_size: page.pageSize,
    total_pages: total.value === null ? null : Math.ceil(total.value / page.pageSize),
    ...estimateMember(total, page),
    ...((page.count ?? 'exact') === 'exact' ? {} : { has_next: hasNext(total, page) }),
  };
}

export function pageC<T>(ctx: RequestContext, items: T[], total: ListTotal, page: PageRequest): PageC<T> {
  // Past the end of an exact total, `previous` leads back to the last page that has results.
  const lastPage = total.value !== null && !total.estimated ? Math.max(1, Math.ceil(total.value / page.pageSize)) : page.page;
  const previousPage = Math.min(page.page - 1, lastPage);
  return {
    count: total.value,
    ...estimateMember(total, page),
    next: hasNext(total, page) ? ctx.urlWithQuery({ page: String(page.page + 1) }) : null,
    previous: page.page > 1 ? ctx.urlWithQuery({ page: previousPage === 1 ? undefined : String(previousPage) }) : null,
    results: items,
  };
}

/** Statuses where framework-style clients read `detail`; the generic envelope carries both. */
const DETAIL_STATUSES = new Set([401, 403, 404, 405]);

export function errorBody(error: AppError, style: ErrorStyle): Record<string, unknown> {
  if (style === 'data') {
    // `detail` may come as an extra (a record's 404 names the missing key there).
    const { detail, ...extras } = error.extras ?? {};
    return error.fieldErrors
      ? { error: error.message, details: error.fieldErrors, code: error.code, ...extras }
      : { error: error.message, detail: detail ?? error.message, code: error.code, ...extras };
  }
  if (style === 'success-flag') {
    return {
      success: false,
      message: error.message,
      status_code: error.status,
      code: error.code,
      ...(error.fieldErrors ? { errors: error.fieldErrors } : {}),
      ...error.extras,
    };
  }
  return {
    status: 'error',
    code: error.code,
    message: error.message,
    ...(DETAIL_STATUSES.has(error.status) ? { detail: error.message } : {}),
    ...(error.fieldErrors ? { errors: error.fieldErrors } : {}),
    ...error.extras,
  };
}
