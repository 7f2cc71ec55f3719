export * from './config.js';
export * from './health-server.js';
export * from './logger.js';
export * from './master-key.js';
export * from './metrics.js';
export * from './worker-service.js';
export * from './group-commit.js';
export * from './item-failure.js';
