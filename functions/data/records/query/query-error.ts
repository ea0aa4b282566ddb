// The one error of the query language: a 400 that names the offending query parameter, both in its
// message and as the key of its details, so a client can tell which part of its request to fix.
import { ValidationError } from '#shared/errors.ts';

export function queryError(parameter: string, problem: string): ValidationError {
  const message = `Query parameter "${parameter}": ${problem}`;
  return new ValidationError(message, { fieldErrors: { [parameter]: [problem] } });
}
