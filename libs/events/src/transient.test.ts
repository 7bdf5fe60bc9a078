import { describe, expect, it } from 'vitest';
import { isConnectionError } from './transient.js';

function withCode(message: string, code: string, syscall?: string): Error {
  return Object.assign(new Error(message), { code, ...(syscall ? { syscall } : {}) });
}

describe('isConnectionError', () => {
  it('recognises lost or refused database connections, also when wrapped', () => {
    expect(isConnectionError(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED', 'connect'))).toBe(true);
    expect(isConnectionError(withCode('terminating connection due to administrator command', '57P01'))).toBe(true);
    class ConnectionError extends Error {}
    expect(isConnectionError(new ConnectionError('pool could not connect'))).toBe(true);
    expect(
      isConnectionError(new Error('query failed', { cause: withCode('read ECONNRESET', 'ECONNRESET', 'read') })),
    ).toBe(true);
  });

  it('leaves handler and data errors to the normal retry and dead-letter path', () => {
    expect(isConnectionError(new Error('document not found'))).toBe(false);
    expect(isConnectionError(withCode('duplicate key', '23505'))).toBe(false);
    expect(isConnectionError('a string')).toBe(false);
    expect(isConnectionError(null)).toBe(false);
  });
});
