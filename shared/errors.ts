// The one error family of the platform. Services throw these; the HTTP chain renders them into the
// envelope the spec gives for the area, always with the error's own status.

export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'BAD_REQUEST'
  | 'AUTHENTICATION_FAILED'
  | 'INVALID_TOKEN'
  | 'PERMISSION_DENIED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'DUPLICATE_ENTRY'
  | 'PAYLOAD_TOO_LARGE'
  | 'RANGE_NOT_SATISFIABLE'
  | 'BUSINESS_LOGIC_ERROR'
  | 'RATE_LIMIT_EXCEEDED'
  | 'INTERNAL_ERROR'
  | 'BAD_GATEWAY'
  | 'SERVICE_UNAVAILABLE'
  | 'GATEWAY_TIMEOUT'
  | 'INSUFFICIENT_STORAGE';

/** Messages per field, as in `errors: {username: ['A user with that username already exists.']}`. */
export type FieldErrors = Record<string, string[]>;

/** Adds messages to a field's list, starting the list on the field's first message. */
export function addFieldMessages(errors: FieldErrors, field: string, ...messages: string[]): void {
  const list = errors[field];
  if (list === undefined) errors[field] = messages;
  else list.push(...messages);
}

export interface AppErrorOptions {
  fieldErrors?: FieldErrors;
  /** Extra top-level body members the spec asks for (for example `active_users`, `warnings`). */
  extras?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly fieldErrors?: FieldErrors;
  readonly extras?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.fieldErrors = options.fieldErrors;
    this.extras = options.extras;
    this.headers = options.headers;
  }
}

export class ValidationError extends AppError {
  constructor(message = 'Invalid request data', options: AppErrorOptions = {}) {
    super(400, 'VALIDATION_ERROR', message, options);
  }

  /** The common case: one or more fields with their messages. */
  static forFields(fieldErrors: FieldErrors, message = 'Invalid request data'): ValidationError {
    return new ValidationError(message, { fieldErrors });
  }
}

export class BadRequestError extends AppError {
  constructor(message = 'Malformed request', options: AppErrorOptions = {}) {
    super(400, 'BAD_REQUEST', message, options);
  }
}

export class AuthenticationFailedError extends AppError {
  constructor(message = 'Authentication credentials were not provided.', options: AppErrorOptions = {}) {
    super(401, 'AUTHENTICATION_FAILED', message, {
      ...options,
      headers: { 'WWW-Authenticate': 'Bearer', ...options.headers },
    });
  }
}

export class InvalidTokenError extends AppError {
  constructor(message = 'Token is invalid or expired', options: AppErrorOptions = {}) {
    super(401, 'INVALID_TOKEN', message, {
      ...options,
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"', ...options.headers },
    });
  }
}

export class PermissionDeniedError extends AppError {
  constructor(message = 'You do not have permission to perform this action.', options: AppErrorOptions = {}) {
    super(403, 'PERMISSION_DENIED', message, options);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Access forbidden.', options: AppErrorOptions = {}) {
    super(403, 'FORBIDDEN', message, options);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found.', options: AppErrorOptions = {}) {
    super(404, 'NOT_FOUND', message, options);
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(method: string, allowed: string[]) {
    super(405, 'METHOD_NOT_ALLOWED', `Method "${method}" not allowed.`, {
      headers: { Allow: allowed.join(', ') },
    });
  }
}

export class ConflictError extends AppError {
  constructor(message = 'Resource conflict', options: AppErrorOptions = {}) {
    super(409, 'CONFLICT', message, options);
  }
}

/** The spec's 409 for a resource that may exist once (an event subscription of a function). */
export class DuplicateEntryError extends AppError {
  constructor(message = 'Duplicate resource', options: AppErrorOptions = {}) {
    super(409, 'DUPLICATE_ENTRY', message, options);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'Request body is too large', options: AppErrorOptions = {}) {
    super(413, 'PAYLOAD_TOO_LARGE', message, options);
  }
}

export class BusinessLogicError extends AppError {
  constructor(message: string, options: AppErrorOptions = {}) {
    super(422, 'BUSINESS_LOGIC_ERROR', message, options);
  }
}

export class RateLimitError extends AppError {
  constructor(retryAfterSeconds: number, options: AppErrorOptions = {}) {
    super(429, 'RATE_LIMIT_EXCEEDED', 'Too many requests', {
      ...options,
      headers: { 'Retry-After': String(retryAfterSeconds), ...options.headers },
      extras: { retry_after: retryAfterSeconds, ...options.extras },
    });
  }
}

export class InternalError extends AppError {
  constructor(message = 'Internal server error', options: AppErrorOptions = {}) {
    super(500, 'INTERNAL_ERROR', message, options);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message = 'Service unavailable', options: AppErrorOptions = {}) {
    super(503, 'SERVICE_UNAVAILABLE', message, options);
  }
}

export class GatewayTimeoutError extends AppError {
  constructor(message = 'The operation took too long', options: AppErrorOptions = {}) {
    super(504, 'GATEWAY_TIMEOUT', message, options);
  }
}

/** Unexpected errors become a plain 500: the client never sees internals, the log keeps the cause. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new InternalError('Internal server error', { cause: error });
}
