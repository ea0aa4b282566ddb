// Errors of document-library buckets, in the platform's error family. Each carries the spec's
// `provider_error_code` as an extra, and keeps the spec's status and code pairs as written (502 with
// `BAD_REQUEST`, 503 with `CONFLICT`): clients match on them.
import { AppError, ConflictError, ValidationError } from '#shared/errors.ts';

export type ProviderErrorCode =
  | 'library_site_not_ready'
  | 'non_office_edit_rejected'
  | 'provider_operation_not_supported'
  | 'provider_communication_failed'
  | 'guest_invitation_propagation_timeout'
  | 'document_library_not_configured';

function providerExtras(code: ProviderErrorCode): { extras: { provider_error_code: ProviderErrorCode } } {
  return { extras: { provider_error_code: code } };
}

/** The site's SharePoint library does not exist yet (not provisioned, or its drive is missing). */
export class LibrarySiteNotReadyError extends ConflictError {
  constructor() {
    super("This site's document library is not ready yet; try again later.", providerExtras('library_site_not_ready'));
  }
}

/** Browser editing exists only for word-processing, spreadsheet and presentation documents. */
export class NonOfficeEditRejectedError extends ValidationError {
  constructor(readonly mimetype: string) {
    super(`Only Office documents can be edited in the browser; "${mimetype}" is not one.`, providerExtras('non_office_edit_rejected'));
  }
}

/** View and edit links exist only for objects kept in a document library. */
export class ProviderOperationNotSupportedError extends ValidationError {
  constructor() {
    super("This bucket's storage provider does not support view and edit links.", providerExtras('provider_operation_not_supported'));
  }
}

/** A document-library bucket on a platform that has no document library configured. */
export class DocumentLibraryNotConfiguredError extends ValidationError {
  constructor() {
    super('Document-library buckets are not available: no document library is configured on this platform.', {
      ...providerExtras('document_library_not_configured'),
      fieldErrors: { storage_provider: ['No document library is configured on this platform.'] },
    });
  }
}

/** Microsoft Graph could not be reached or answered with a failure. */
export class ProviderCommunicationError extends AppError {
  constructor(message = 'The document library provider could not be reached; try again.', options: { cause?: unknown } = {}) {
    super(502, 'BAD_REQUEST', message, { ...providerExtras('provider_communication_failed'), cause: options.cause });
  }
}

/** A guest was invited but did not become resolvable in time; the same call usually works a little later. */
export class GuestInvitationPropagationTimeoutError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(503, 'CONFLICT', 'Your guest access to the document library is still being set up; retry in a few seconds.', {
      ...providerExtras('guest_invitation_propagation_timeout'),
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}
