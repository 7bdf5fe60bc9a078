export * from './membership.js';
export * from './users.js';
