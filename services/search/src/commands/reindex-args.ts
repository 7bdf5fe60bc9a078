import { parseArgs } from 'node:util';

export const REINDEX_USAGE = 'usage: npm run reindex -- [--workspace <id>] [--restart] [--batch-size <1..1000>]';

export interface ReindexArgs {
  /** One workspace; every workspace when absent. */
  workspaceId?: string;
  restart: boolean;
  batchSize?: number;
  help: boolean;
}

/** A command line that cannot be run; the message says why (printed with the usage). */
export class ReindexUsageError extends Error {
  override name = 'ReindexUsageError';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The arguments after `npm run reindex --`. */
export function parseReindexArgs(argv: readonly string[]): ReindexArgs {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new ReindexUsageError((error as Error).message);
  }
  const { workspace, restart, help } = parsed.values;
  const batch = parsed.values['batch-size'];
  if (workspace !== undefined && !UUID.test(workspace))
    throw new ReindexUsageError(`--workspace takes a workspace id (a UUID), not "${workspace}"`);
  let batchSize: number | undefined;
  if (batch !== undefined) {
    batchSize = Number(batch);
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 1000)
      throw new ReindexUsageError(`--batch-size takes a whole number from 1 to 1000, not "${batch}"`);
  }
  // Ids are stored and compared in their canonical lowercase form (the stream's id order).
  return { workspaceId: workspace?.toLowerCase(), restart: restart ?? false, batchSize, help: help ?? false };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      workspace: { type: 'string', short: 'w' },
      restart: { type: 'boolean' },
      'batch-size': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
