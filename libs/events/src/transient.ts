import { dependencyOutage } from '@wiki/http';

/**
 * True when the error (or one it wraps) says a dependency could not be reached (the database
 * above all; libs/http `dependencyOutage`, the one classifier the error handler uses too). Such a
 * failure is retried for as long as it lasts instead of counting towards dead-lettering: an outage
 * of Postgres must not push every event of that time into the dead-letter subject.
 */
export function isConnectionError(error: unknown): boolean {
  return dependencyOutage(error) !== null;
}
