// The response envelopes of the spec, success and error, built in one place so every group answers
// in exactly the same shapes.
import type { AppError } from '#shared/errors.ts';
import type { RequestContext } from './request-context.ts';
import type { ErrorStyle } from './route.ts';
import type { PageRequest } from './pagination.ts';

export interface EnvelopeA<T> {
  status: 'success';
  message: string;
  data: T;
  total?: number;
  pagination?: { page: number; page_size: number; has_next: boolean; has_previous: boolean };
}

export interface EnvelopeB<T> {
  success: boolean;
  message: string;
  status_code?: number;
  data?: T;
}

export interface PageB<T> extends EnvelopeB<T[]> {
  total: number;
  page: number;
  page_size: number;
  total_pages: number;
}

/** Envelope C, the plain page of the console lists. */
export interface PageC<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export function envelopeA<T>(data: T, message: string): EnvelopeA<T> {
  return { status: 'success', message, data };
}

export function pageA<T>(items: T[], total: number, page: PageRequest, message: string): EnvelopeA<T[]> {
  return {
    status: 'success',
    message,
    data: items,
    total,
    pagination: {
      page: page.page,
      page_size: page.pageSize,
      has_next: page.page * page.pageSize < total,
      has_previous: page.page > 1,
    },
  };
}

export function envelopeB<T>(data: T, message: string, statusCode = 200): EnvelopeB<T> {
  return { success: true, message, status_code: statusCode, data };
}

export function pageB<T>(items: T[], total: number, page: PageRequest, message: string): PageB<T> {
  return {
    success: true,
    message,
    data: items,
    total,
    page: page.page,
    page_size: page.pageSize,
    total_pages: Math.ceil(total / page.pageSize),
  };
}

export function pageC<T>(ctx: RequestContext, items: T[], total: number, page: PageRequest): PageC<T> {
  const lastPage = Math.max(1, Math.ceil(total / page.pageSize));
  // Past the end, `previous` leads back to the last page that has results.
  const previousPage = Math.min(page.page - 1, lastPage);
  return {
    count: total,
    next: page.page < lastPage ? ctx.urlWithQuery({ page: String(page.page + 1) }) : null,
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
