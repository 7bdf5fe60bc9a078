import { ERROR_CODES, STATUS_OF } from './error-codes.js';
import { ERROR_REASONS } from './error-reasons.js';
import { errorEnvelope, errorResponses } from './error-responses.js';
import { AppError, errorBody, refusal } from './errors.js';

describe('error catalogue', () => {
  it('gives every code its own status, and 412 to PRECONDITION_FAILED', () => {
    const statuses = Object.values(ERROR_CODES).map((c) => c.status);
    expect(new Set(statuses).size).toBe(statuses.length);
    expect(STATUS_OF.PRECONDITION_FAILED).toBe(412);
    expect(STATUS_OF.CONFLICT).toBe(409);
  });

  it('answers a domain reason with its code, and the reason beside it', () => {
    const error = refusal('DOCUMENT_ARCHIVED', 'This document is archived');
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'CONFLICT', statusCode: 409, reason: 'DOCUMENT_ARCHIVED' });
    expect(refusal('INVITATION_EXPIRED', 'expired').statusCode).toBe(410);
    for (const { code } of Object.values(ERROR_REASONS)) expect(ERROR_CODES[code]).toBeDefined();
  });

  it('writes the reason into the body only when there is one', () => {
    expect(errorBody('CONFLICT', 'No', 'r1', undefined, 'THREAD_ALREADY_OPEN')).toEqual({
      success: false,
      error: { code: 'CONFLICT', reason: 'THREAD_ALREADY_OPEN', message: 'No', requestId: 'r1' },
    });
    expect(errorBody('NOT_FOUND', 'Gone', 'r2')).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: 'Gone', requestId: 'r2' },
    });
  });
});

describe('errorResponses', () => {
  it('lists the envelope under each status, described with its code', () => {
    const responses = errorResponses(400, 404);
    expect(Object.keys(responses)).toEqual(['400', '404']);
    expect(responses[404]).toMatchObject({ ...errorEnvelope, description: expect.stringMatching(/^NOT_FOUND: /) });
  });

  it('lists a reason under its code’s status, with every reason of that status named', () => {
    const responses = errorResponses(401, 'INVITATION_EXPIRED', 'INVITATION_CLOSED', 409);
    expect(Object.keys(responses).sort()).toEqual(['401', '409', '410']);
    expect(responses[410].description).toMatch(/^GONE: .*reason: INVITATION_EXPIRED \(.*\); INVITATION_CLOSED/);
    expect(responses[409].description).not.toContain('reason:');
  });

  it('lists Retry-After where the code has one', () => {
    const responses = errorResponses(429, 503, 404);
    expect(responses[429].headers).toHaveProperty('retry-after');
    expect(responses[503].headers).toHaveProperty('retry-after');
    expect(responses[404].headers).toBeUndefined();
  });
});
