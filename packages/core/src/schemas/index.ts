export * from './common.js';
export * from './endpoint.js';
export * from './job.js';
export * from './limits.js';
export * from './records.js';
export * from './runs.js';
export * from './scheduling.js';
