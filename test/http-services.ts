import type { ServiceName } from '@wiki/config';

/** Every service the gateway routes HTTP to (all but collab): a stack of the whole API. */
export const HTTP_SERVICES: readonly ServiceName[] = [
  'workspace',
  'document',
  'comment',
  'search',
  'attachment',
  'notification',
  'export',
  'mcp',
];
