export * from './bus.js';
export * from './event-factories.js';
export * from './events.js';
export * from './factories.js';
export * from './jwks.js';
export * from './names.js';
export * from './raw-request.js';
export * from './stack.js';
