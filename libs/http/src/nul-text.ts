import type { FastifyInstance } from 'fastify';
import { AppError } from './errors.js';

/**
 * PostgreSQL stores no U+0000 in `text` or `jsonb` (SQLSTATE 22021 / 22P05), so a NUL that reaches a
 * query turns a client's mistake into a 500. It is refused at the edge instead, naming the field.
 */
const NUL = '\u0000';

/**
 * The dotted path (`content.0.text`, the form validation errors use) of the first string or key
 * holding a NUL in `value`, or undefined. Iterative: a deeply nested body must not blow the stack.
 */
export function findNulField(value: unknown, root = ''): string | undefined {
  const pending: Array<[unknown, string]> = [[value, root]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, path] = next;
    if (typeof current === 'string') {
      if (current.includes(NUL)) return path || 'body';
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) pending.push([current[i], join(path, String(i))]);
    } else if (current !== null && typeof current === 'object') {
      for (const [key, child] of Object.entries(current)) {
        if (key.includes(NUL)) return join(path, key.replaceAll(NUL, '\\u0000'));
        pending.push([child, join(path, key)]);
      }
    }
  }
  return undefined;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

export function nulFieldError(field: string): AppError {
  const message = 'must not contain the NUL character (\\u0000)';
  return new AppError('VALIDATION_ERROR', `${field} ${message}`, [{ field, message }]);
}

/**
 * A JSON text can only carry a NUL as the escape `\u0000` (a raw control character is invalid
 * JSON), so bodies without that sequence are not walked at all.
 */
export function nulFieldOfJson(text: string, parsed: unknown): string | undefined {
  return text.includes('\\u0000') ? findNulField(parsed) : undefined;
}

/**
 * Query strings and path parameters: a NUL only arrives percent-encoded (`%00`; Node refuses a raw
 * one in the request line), so URLs without it cost one `includes`. The gateway's catch-all
 * parameter (`*`) is left to the service that owns the route, which names the real field.
 */
export function refuseNulInUrls(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (!request.url.includes('%00')) return;
    const params = { ...(request.params as Record<string, unknown> | undefined) };
    delete params['*'];
    const field = findNulField(params) ?? findNulField(request.query);
    if (field) throw nulFieldError(field);
  });
}
