import type { ServiceName } from '@wiki/config';
import type { StartPart } from '@wiki/testing';
import { startService as startAttachment } from '../services/attachment/src/service.js';
import { startService as startComment } from '../services/comment/src/service.js';
import { startService as startDocument } from '../services/document/src/service.js';
import { startService as startExport } from '../services/export/src/service.js';
import { startService as startMcp } from '../services/mcp/src/service.js';
import { startService as startNotification } from '../services/notification/src/service.js';
import { startService as startSearch } from '../services/search/src/service.js';
import { startService as startWorkspace } from '../services/workspace/src/service.js';

/** Every service the gateway routes HTTP to (all but collab), for a stack of the whole API. */
export const HTTP_SERVICE_PARTS: Partial<Record<ServiceName, StartPart>> = {
  workspace: startWorkspace as StartPart,
  document: startDocument as StartPart,
  comment: startComment as StartPart,
  search: startSearch as StartPart,
  attachment: startAttachment as StartPart,
  notification: startNotification as StartPart,
  export: startExport as StartPart,
  mcp: startMcp as StartPart,
};
