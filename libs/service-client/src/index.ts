export * from './attachment-texts.js';
export * from './comment-texts.js';
export * from './document-stream.js';
export * from './document-text.js';
export * from './imports.js';
export * from './peer-replicas.js';
export * from './service-client.js';
export * from './workspace-users.js';
