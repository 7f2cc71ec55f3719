export * from './http.js';
export type { NotificationChannelInfo, NotificationInfo } from './notification-records.js';
export * from './resources.js';
export * from './server.js';
export { toolError, type KairosTool } from './tool.js';
export { KAIROS_TOOLS, KAIROS_TOOL_NAMES } from './tools/index.js';
export { ONE_SHOT_TTL_SLACK_MINUTES, oneShotTtlMinutes } from './tools/scheduling.js';
