export * from './connection-slots.js';
export * from './newest-wins.js';
export * from './redis.js';
export * from './token-bucket.js';
