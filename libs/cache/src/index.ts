export * from './keys.js';
export * from './local-cache.js';
export * from './single-flight.js';
