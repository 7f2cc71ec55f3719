export * from './common.js';
export * from './endpoint.js';
export * from './job.js';
export * from './limits.js';
export * from './records.js';
