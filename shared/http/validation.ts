// Turns zod failures into the spec's field errors: `{field: ['This field is required.']}`.
import * as z from 'zod';
import type { ZodError, ZodType } from 'zod';
import { addFieldMessages, ValidationError, type FieldErrors } from '#shared/errors.ts';

// Missing members read as Django REST framework clients expect them to.
z.config({
  customError: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'This field is required.' : undefined),
});

export function fieldErrorsOf(error: ZodError, prefix?: string): FieldErrors {
  // Issue paths hold client-chosen member names: no prototype for them to land on.
  const errors = Object.create(null) as FieldErrors;
  for (const issue of error.issues) {
    const path = issue.path.map(String).join('.');
    const key = [prefix, path].filter((part) => part !== undefined && part !== '').join('.') || 'non_field_errors';
    addFieldMessages(errors, key, issue.message);
  }
  return errors;
}

/** Parses `input` with `schema` or throws a 400 VALIDATION_ERROR listing every bad field. */
export function parseOrThrow<T>(schema: ZodType<T>, input: unknown, prefix?: string): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw ValidationError.forFields(fieldErrorsOf(parsed.error, prefix));
  return parsed.data;
}
