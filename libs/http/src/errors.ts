import { type ErrorCode, STATUS_OF } from './error-codes.js';
import { ERROR_REASONS, type ErrorReason } from './error-reasons.js';

export interface ErrorDetail {
  field: string;
  message: string;
  /** On a 412 (ARCHITECTURE 5.16): the revision the resource is at now. */
  current?: number;
}

/** An error whose code, message, details and domain reason are meant for the client. */
export class AppError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly reason?: ErrorReason,
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
export const serviceUnavailable = (message = 'Service unavailable') => new AppError('SERVICE_UNAVAILABLE', message);

/** A refusal for a domain reason of the catalogue: answered with the reason's code, and the reason. */
export const refusal = (reason: ErrorReason, message: string) =>
  new AppError(ERROR_REASONS[reason].code, message, undefined, reason);

export interface ErrorBody {
  success: false;
  error: {
    code: ErrorCode;
    reason?: ErrorReason;
    message: string;
    details?: ErrorDetail[];
    requestId?: string;
  };
}

export function errorBody(
  code: ErrorCode,
  message: string,
  requestId?: string,
  details?: ErrorDetail[],
  reason?: ErrorReason,
): ErrorBody {
  return {
    success: false,
    error: {
      code,
      ...(reason ? { reason } : {}),
      message,
      ...(details ? { details } : {}),
      ...(requestId ? { requestId } : {}),
    },
  };
}
