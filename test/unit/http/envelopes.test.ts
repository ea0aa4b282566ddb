import { describe, expect, it } from 'vitest';
import { envelopeA, envelopeB, errorBody, pageA, pageB } from '#shared/http/envelopes.ts';
import { NotFoundError, ValidationError } from '#shared/errors.ts';

describe('envelopes', () => {
  const page = { page: 2, pageSize: 10 };
  const exact = (value: number, more = false) => ({ value, estimated: false, more });

  it('builds Envelope A with pagination flags', () => {
    expect(envelopeA({ slug: 'acme' }, 'Organization created')).toEqual({
      status: 'success',
      message: 'Organization created',
      data: { slug: 'acme' },
    });
    expect(pageA(['a', 'b'], exact(25, true), page, 'ok')).toEqual({
      status: 'success',
      message: 'ok',
      data: ['a', 'b'],
      total: 25,
      pagination: { page: 2, page_size: 10, has_next: true, has_previous: true },
    });
    expect(pageA([], exact(20), page, 'ok').pagination).toMatchObject({ has_next: false });
  });

  it('builds Envelope B, plain and paged', () => {
    expect(envelopeB({ id: 1 }, 'Stored', 201)).toEqual({ success: true, message: 'Stored', status_code: 201, data: { id: 1 } });
    expect(pageB(['x'], exact(21, true), page, 'ok')).toEqual({
      success: true,
      message: 'ok',
      data: ['x'],
      total: 21,
      page: 2,
      page_size: 10,
      total_pages: 3,
    });
  });

  it('renders `_count=planned` and `_count=none` totals in Envelopes A and B', () => {
    const planned = { ...page, count: 'planned' as const };
    const none = { ...page, count: 'none' as const };
    // An estimate decides nothing about the next page: the look-ahead row does.
    expect(pageA(['a'], { value: 5, estimated: true, more: true }, planned, 'ok')).toMatchObject({
      total: 5,
      total_is_estimate: true,
      pagination: { has_next: true },
    });
    expect(pageA(['a'], { value: null, estimated: false, more: false }, none, 'ok')).toMatchObject({
      total: null,
      pagination: { has_next: false, has_previous: true },
    });
    expect(pageA(['a'], { value: null, estimated: false, more: false }, none, 'ok')).not.toHaveProperty('total_is_estimate');
    expect(pageB(['x'], { value: null, estimated: false, more: true }, none, 'ok')).toMatchObject({ total: null, total_pages: null });
    expect(pageB(['x'], { value: 11, estimated: false, more: false }, planned, 'ok')).toMatchObject({
      total: 11,
      total_pages: 2,
      total_is_estimate: false,
    });
  });

  it('renders errors generically with field errors, and with the success flag where the area uses it', () => {
    const invalid = ValidationError.forFields({ name: ['This field is required.'] });
    expect(errorBody(invalid, 'generic')).toEqual({
      status: 'error',
      code: 'VALIDATION_ERROR',
      message: 'Invalid request data',
      errors: { name: ['This field is required.'] },
    });
    expect(errorBody(new NotFoundError('Bucket not found.'), 'success-flag')).toEqual({
      success: false,
      message: 'Bucket not found.',
      status_code: 404,
      code: 'NOT_FOUND',
    });
    expect(errorBody(new NotFoundError(), 'generic')).toMatchObject({ detail: 'Not found.' });
  });
});

describe('data service error style', () => {
  it('renders validation failures as {error, details} and other errors as {error, detail}', () => {
    const invalid = ValidationError.forFields({ age: ['Must be at least 0.'] }, 'Validation failed');
    expect(errorBody(invalid, 'data')).toEqual({
      error: 'Validation failed',
      details: { age: ['Must be at least 0.'] },
      code: 'VALIDATION_ERROR',
    });
    const missing = new NotFoundError('Not found', { extras: { detail: 'No record with id "7" in crm_contacts.' } });
    expect(errorBody(missing, 'data')).toEqual({ error: 'Not found', detail: 'No record with id "7" in crm_contacts.', code: 'NOT_FOUND' });
  });
});
