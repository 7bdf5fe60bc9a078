/**
 * The codes an error answer's `error.code` may hold: the ones ARCHITECTURE 5.1 pins, and 412 of
 * 5.16. Each has one HTTP status and one status has one code, so clients and outside checks may
 * read either. Why a refusal happened, where the status alone does not say, is a domain reason
 * (error-reasons.ts), never a new code.
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: {
    status: 400,
    description: 'The request is malformed (a field, a query parameter, a path id, the JSON); details name each field',
  },
  UNAUTHORIZED: { status: 401, description: 'No valid credential came with the request' },
  FORBIDDEN: { status: 403, description: 'The caller may not do this' },
  NOT_FOUND: { status: 404, description: 'Not found, or not visible to the caller' },
  CONFLICT: { status: 409, description: 'The current state does not allow this; reason says why' },
  GONE: { status: 410, description: 'No longer available; reason says why' },
  PRECONDITION_FAILED: { status: 412, description: 'The resource changed since the revision the request named' },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'The body or a file is larger than allowed' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'The body is not of a type this route accepts' },
  RATE_LIMITED: { status: 429, description: 'Too many requests; retry after Retry-After' },
  INTERNAL_ERROR: { status: 500, description: 'An unexpected failure (never with a stack trace)' },
  SERVICE_UNAVAILABLE: { status: 503, description: 'A dependency cannot be reached; retry after Retry-After' },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The HTTP status of each code. */
export type StatusOfCode<C extends ErrorCode> = (typeof ERROR_CODES)[C]['status'];

/** Every status an error answer may have. */
export type ErrorStatus = StatusOfCode<ErrorCode>;

export const STATUS_OF = Object.fromEntries(
  Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]),
) as { [C in ErrorCode]: StatusOfCode<C> };

/** The code of each status (the inverse of STATUS_OF). */
export const CODE_OF_STATUS = Object.fromEntries(
  Object.entries(ERROR_CODES).map(([code, { status }]) => [status, code]),
) as Record<ErrorStatus, ErrorCode>;
