export * from './app.js';
export * from './errors.js';
export * from './health.js';
export * from './launcher.js';
export { findNulField, nulFieldError } from './nul-text.js';
export * from './schemas.js';
export * from './serve.js';
export * as Type from './type.js';
