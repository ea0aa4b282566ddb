// Errors of the object-store port, in the platform's error family so routes render them directly.
import { AppError, NotFoundError, ValidationError } from '#shared/errors.ts';

/** The key has no bytes in the store (a record without its file, or a race with a delete). */
export class ObjectMissingError extends NotFoundError {
  constructor(readonly key: string) {
    super('The object has no stored content.');
  }
}

/** More bytes arrived than the bucket's `file_size_limit` allows; nothing was stored. */
export class ObjectTooLargeError extends ValidationError {
  constructor(readonly limitBytes: number) {
    super('File size exceeds bucket limit', { extras: { file_size_limit: limitBytes } });
  }
}

/** A byte range that starts past the end of the object (HTTP 416, with the size to retry against). */
export class RangeNotSatisfiableError extends AppError {
  constructor(
    readonly size: number,
    options: { message?: string; headers?: Record<string, string> } = {},
  ) {
    super(416, 'RANGE_NOT_SATISFIABLE', options.message ?? 'The requested range is not satisfiable.', {
      headers: { ...options.headers, 'Content-Range': `bytes */${size}` },
    });
  }
}

/** The backend (disk, S3) failed; the spec answers 500 with `{success: false, message, status_code}`. */
export class StorageUnavailableError extends AppError {
  constructor(message = 'Storage is unavailable; try again.', options: { cause?: unknown } = {}) {
    super(500, 'INTERNAL_ERROR', message, options);
  }
}

/**
 * The disk (or the quota) ran out while an upload was written: 507, and nothing was stored (the
 * partial file is removed before this is thrown). The client may send again once room is made.
 */
export class InsufficientStorageError extends AppError {
  constructor(options: { cause?: unknown } = {}) {
    super(507, 'INSUFFICIENT_STORAGE', 'There is no room left to store the file; nothing was stored.', options);
  }
}

/** Whether a file-system error says the disk or the user's quota is full. */
export function isOutOfSpace(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
