export * from './dev-keys.js';
export * from './identity.js';
export * from './mcp-key.js';
export * from './plugin.js';
export * from './profile.js';
export * from './provider-settings.js';
export * from './roles.js';
export * from './unsubscribe-token.js';
