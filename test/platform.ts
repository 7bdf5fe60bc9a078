import type { ServiceName } from '@wiki/config';
import { startService as startGateway } from '@wiki/gateway';
import { type Stack, type StartPart, startStack } from '@wiki/testing';

/** Every service by name, loaded when a stack asks for it: a test loads the services it starts, no others. */
const SERVICES: Record<ServiceName, () => Promise<StartPart>> = {
  workspace: async () => (await import('../services/workspace/src/service.js')).startService as StartPart,
  document: async () => (await import('../services/document/src/service.js')).startService as StartPart,
  comment: async () => (await import('../services/comment/src/service.js')).startService as StartPart,
  search: async () => (await import('../services/search/src/service.js')).startService as StartPart,
  notification: async () => (await import('../services/notification/src/service.js')).startService as StartPart,
  attachment: async () => (await import('../services/attachment/src/service.js')).startService as StartPart,
  export: async () => (await import('../services/export/src/service.js')).startService as StartPart,
  mcp: async () => (await import('../services/mcp/src/service.js')).startService as StartPart,
  collab: async () => (await import('../services/collab/src/service.js')).startService as StartPart,
};

export interface PlatformOptions {
  /** Extra environment (e.g. RATE_LIMIT_ENABLED=true). */
  env?: Record<string, string>;
  /** A service started some other way than its plain startService (e.g. export with test settings). */
  parts?: Partial<Record<ServiceName, StartPart>>;
}

/**
 * The real gateway and the named services, in this process, on throw-away databases and a stream
 * of their own (libs/testing startStack), started in the order named.
 */
export async function startPlatform(names: readonly ServiceName[], options: PlatformOptions = {}): Promise<Stack> {
  const services: Partial<Record<ServiceName, StartPart>> = {};
  for (const name of names) services[name] = options.parts?.[name] ?? (await SERVICES[name]());
  return startStack({ gateway: startGateway as StartPart, services, env: options.env });
}
