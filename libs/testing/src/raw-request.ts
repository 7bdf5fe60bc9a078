import { request } from 'node:http';

/**
 * A GET of `path` exactly as written (fetch would resolve `..` and `.` segments before sending),
 * on `origin` (`http://host:port`): how a scanner asks.
 */
export function getRawPath(
  origin: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Ways of asking an API port for `/metrics` (ARCHITECTURE 5.14: never served there): case,
 * slashes, dot segments, percent-escapes, a query, and the same under the gateway's `/api/v1/`.
 */
export const METRICS_PATH_SPELLINGS = [
  '/metrics',
  '/metrics/',
  '/metrics?format=prometheus',
  '/METRICS',
  '/Metrics',
  '//metrics',
  '/./metrics',
  '/health/../metrics',
  '/%6detrics',
  '/%6D%65trics',
  '/metrics%2F',
  '/api/v1/metrics',
  '/api/v1/metrics/',
  '/api/v1/METRICS',
  '/api/v1//metrics',
  '/api/v1/../metrics',
  '/api/v1/%2e%2e/metrics',
  '/api/v1/%2E%2E/%2E%2E/metrics',
  '/api/v1/./metrics',
];

/** Whether an answer carries Prometheus text (what a `/metrics` answer would). */
export function looksLikeMetrics(body: string): boolean {
  return /^# (HELP|TYPE) /m.test(body) || body.includes('process_cpu');
}
