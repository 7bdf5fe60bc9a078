export * from './app.js';
export * from './errors.js';
export * from './health.js';
export * from './image-url.js';
export * from './launcher.js';
export * from './schemas.js';
export * from './serve.js';
export * from './text.js';
export * as Type from './type.js';
