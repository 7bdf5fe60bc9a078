// Prints the children's log lines with the part's name in front. Logs are pino JSON; on a
// terminal they are shortened to "time level message (details)", elsewhere passed on as they are.
import { createInterface } from 'node:readline';

const COLORS = [36, 35, 33, 32, 34, 91, 96, 95, 93, 92];
const LEVELS = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const LEVEL_COLORS = { 40: 33, 50: 31, 60: 31 };
// Fields already shown, or noise on a terminal.
const HIDDEN = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'msg',
  'service',
  'req',
  'res',
  'method',
  'url',
  'statusCode',
  'responseTime',
  'reqId',
  'requestId',
  'err',
]);

export function createLogPrinter({ names, pretty }) {
  const width = Math.max(...names.map((n) => n.length));
  const colors = new Map(names.map((name, i) => [name, COLORS[i % COLORS.length]]));
  const paint = (code, text) => (pretty ? `\x1b[${code}m${text}\x1b[0m` : text);
  const pending = [];

  function format(line) {
    if (!pretty || !line.startsWith('{')) return line;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      return line;
    }
    const time = new Date(entry.time ?? Date.now()).toTimeString().slice(0, 8);
    const level = LEVELS[entry.level] ?? String(entry.level);
    const parts = [time, LEVEL_COLORS[entry.level] ? paint(LEVEL_COLORS[entry.level], level) : level];
    // Fastify's default request logs nest req/res; the services' own put the fields at the top.
    const method = entry.req?.method ?? entry.method;
    const url = entry.req?.url ?? entry.url;
    const status = entry.res?.statusCode ?? entry.statusCode;
    if (method && url) parts.push(`${method} ${url}`);
    if (status !== undefined) parts.push(String(status));
    if (entry.responseTime !== undefined) parts.push(`${Math.round(entry.responseTime)}ms`);
    if (entry.msg) parts.push(entry.msg);
    const extra = Object.fromEntries(Object.entries(entry).filter(([key]) => !HIDDEN.has(key)));
    if (Object.keys(extra).length) parts.push(JSON.stringify(extra));
    if (entry.reqId ?? entry.requestId) parts.push(paint(90, `[${entry.reqId ?? entry.requestId}]`));
    let text = parts.join(' ');
    if (entry.err) text += `\n${entry.err.stack ?? entry.err.message ?? JSON.stringify(entry.err)}`;
    return text;
  }

  return {
    /**
     * Prints each line of `stream` with the name in front and hands the raw line to `remember`.
     * `nameOf`, for a process that runs several parts, names the part a line is from (undefined:
     * the process's own `name`).
     */
    attach(name, stream, remember, { nameOf } = {}) {
      const prefixOf = (who) => `${paint(colors.get(who) ?? 0, who.padEnd(width))} | `;
      const lines = createInterface({ input: stream, crlfDelay: Infinity });
      pending.push(new Promise((resolvePromise) => lines.once('close', resolvePromise)));
      lines.on('line', (line) => {
        remember(line);
        const text = format(line).replace(/\n/g, `\n${' '.repeat(width)} | `);
        process.stdout.write(`${prefixOf(nameOf?.(line) ?? name)}${text}\n`);
      });
    },
    /** Resolves when every attached stream has ended (so the last lines are printed before exit). */
    flush() {
      return Promise.all(pending);
    },
  };
}
