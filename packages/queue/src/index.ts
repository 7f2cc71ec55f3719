export * from './connection.js';
export * from './names.js';
export * from './payloads.js';
export * from './schedule-notifier.js';
export * from './trace-context.js';
export * from './notification-queue.js';
export * from './shards.js';
export * from './planner-presence.js';
