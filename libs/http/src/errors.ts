export interface ErrorDetail {
  field: string;
  message: string;
}

export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'GONE'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export const STATUS_OF: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
};

/** An error whose code, message and details are meant for the client. */
export class AppError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = 'AppError';
    this.statusCode = STATUS_OF[code];
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) =>
  new AppError('VALIDATION_ERROR', message, details);
export const invalidField = (field: string, message: string) =>
  new AppError('VALIDATION_ERROR', `${field} ${message}`, [{ field, message }]);
export const unauthorized = (message = 'Authentication required') => new AppError('UNAUTHORIZED', message);
export const forbidden = (message = 'You do not have permission to do this') => new AppError('FORBIDDEN', message);
export const notFound = (what = 'Resource') => new AppError('NOT_FOUND', `${what} not found`);
export const conflict = (message: string) => new AppError('CONFLICT', message);
export const gone = (message: string) => new AppError('GONE', message);
export const serviceUnavailable = (message = 'Service unavailable') => new AppError('SERVICE_UNAVAILABLE', message);

export interface ErrorBody {
  success: false;
  error: { code: ErrorCode; message: string; details?: ErrorDetail[]; requestId?: string };
}

export function errorBody(code: ErrorCode, message: string, requestId?: string, details?: ErrorDetail[]): ErrorBody {
  return {
    success: false,
    error: { code, message, ...(details ? { details } : {}), ...(requestId ? { requestId } : {}) },
  };
}
