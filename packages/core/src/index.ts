export * from './errors.js';
export * from './ids.js';
export * from './schemas/index.js';
export * from './secrets.js';
export * from './job-state.js';
export * from './schedule/index.js';
export * from './signing/index.js';
export * from './retention.js';
