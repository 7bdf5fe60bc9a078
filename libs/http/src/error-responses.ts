import {
  CODE_OF_STATUS,
  ERROR_CODES,
  type ErrorCode,
  type ErrorStatus,
  STATUS_OF,
  type StatusOfCode,
} from './error-codes.js';
import { type CodeOfReason, ERROR_REASONS, type ErrorReason } from './error-reasons.js';
import { stringEnum } from './schemas.js';
import * as Type from './type.js';

/** The body of every error answer (ARCHITECTURE 5.1), as errors.ts `errorBody` writes it. */
export const errorEnvelope = Type.Unsafe<{
  success?: boolean;
  error?: {
    code?: string;
    reason?: string;
    message?: string;
    requestId?: string;
    details?: { field?: string; message?: string; current?: number }[];
  };
}>({
  type: 'object',
  properties: {
    success: Type.Boolean(),
    error: {
      type: 'object',
      properties: {
        code: stringEnum(Object.keys(ERROR_CODES) as ErrorCode[]),
        reason: {
          ...stringEnum(Object.keys(ERROR_REASONS) as ErrorReason[]),
          description: 'Why, where the code alone does not say (a domain reason; see the response description)',
        },
        message: Type.String(),
        requestId: Type.String(),
        details: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              field: Type.String(),
              message: Type.String(),
              current: Type.Integer({ description: 'On a 412: the revision the resource is at now' }),
            },
          },
        },
      },
    },
  },
});

/** The envelope as one status's response: described with its code (OpenAPI shows the description). */
export type ErrorResponseSchema = typeof errorEnvelope & {
  description: string;
  headers?: Record<string, { type: string; description: string }>;
};

/** An error status, or a domain reason (which stands for its code's status). */
type Listed = ErrorStatus | ErrorReason;
type StatusOfListed<L extends Listed> =
  | Extract<L, ErrorStatus>
  | (L extends ErrorReason ? StatusOfCode<CodeOfReason<L>> : never);

const RETRY_AFTER = {
  'retry-after': { type: 'integer', description: 'Seconds to wait before retrying' },
};

/**
 * The error responses of a route's schema: the envelope under each listed status, described with
 * its code and, for a listed domain reason, the reason (so the OpenAPI description names what a
 * client may branch on). `errorResponses(400, 401, 404, 'DOCUMENT_ARCHIVED')` lists 400, 401, 404
 * and 409. Every service route also gets 503 from libs/service, which needs no listing.
 */
export function errorResponses<const L extends readonly Listed[]>(
  ...listed: L
): { [S in StatusOfListed<L[number]>]: ErrorResponseSchema } {
  const reasonsOf = new Map<ErrorCode, ErrorReason[]>();
  for (const item of listed) {
    const code = typeof item === 'number' ? CODE_OF_STATUS[item] : ERROR_REASONS[item].code;
    const reasons = reasonsOf.get(code) ?? [];
    if (typeof item === 'string') reasons.push(item);
    reasonsOf.set(code, reasons);
  }
  return Object.fromEntries(
    [...reasonsOf].map(([code, reasons]) => [STATUS_OF[code], errorResponse(code, reasons)]),
  ) as { [S in StatusOfListed<L[number]>]: ErrorResponseSchema };
}

/** The envelope described as one code's answer (with the Retry-After header where it has one). */
export function errorResponse(code: ErrorCode, reasons: readonly ErrorReason[] = []): ErrorResponseSchema {
  const why = reasons.map((reason) => `${reason} (${ERROR_REASONS[reason].description})`).join('; ');
  return {
    ...errorEnvelope,
    description: `${code}: ${ERROR_CODES[code].description}${why ? `. reason: ${why}` : ''}`,
    ...(code === 'RATE_LIMITED' || code === 'SERVICE_UNAVAILABLE' ? { headers: RETRY_AFTER } : {}),
  };
}
