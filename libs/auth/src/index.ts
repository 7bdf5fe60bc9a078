export * from './dev-keys.js';
export * from './identity.js';
export * from './membership.js';
export * from './plugin.js';
export * from './roles.js';
export * from './service-client.js';
export * from './users.js';
export * from './workspace-users.js';
