export * from './budget.js';
export * from './context.js';
export * from './governor.js';
export * from './records.js';
export * from './session-bounds.js';
export * from './tools.js';
export * from './when-to-analyse.js';
