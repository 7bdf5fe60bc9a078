/** slonik error classes that mean "the database was unreachable", not "this event is bad". */
const CONNECTION_ERROR_NAMES = new Set([
  'ConnectionError',
  'BackendTerminatedError',
  'BackendTerminatedUnexpectedlyError',
]);

/** Socket errors and Postgres SQLSTATEs for lost connections, shutdowns and exhausted slots. */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

/**
 * True when the error (or one it wraps) says the database could not be reached. Such a failure is
 * retried for as long as it lasts instead of counting towards dead-lettering: an outage of
 * Postgres must not push every event of that time into the dead-letter subject.
 */
export function isConnectionError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (CONNECTION_ERROR_NAMES.has(current.name) || (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)))
      return true;
    if (current.constructor && CONNECTION_ERROR_NAMES.has(current.constructor.name)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
