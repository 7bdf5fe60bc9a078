export const SERVICE_NAMES = [
  'workspace',
  'document',
  'search',
  'comment',
  'attachment',
  'notification',
  'export',
  'mcp',
  'collab',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const DEFAULT_SERVICE_PORTS: Record<ServiceName, number> = {
  workspace: 8081,
  document: 8082,
  search: 8083,
  comment: 8084,
  attachment: 8085,
  notification: 8086,
  export: 8087,
  mcp: 8088,
  collab: 8089,
};
