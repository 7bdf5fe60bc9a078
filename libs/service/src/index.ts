export * from './app.js';
export * from './definition.js';
export * from './main.js';
export * from './periodic.js';
export * from './runner.js';
