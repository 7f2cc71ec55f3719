export * from './accounts.js';
export * from './api-keys.js';
export * from './client.js';
export * from './endpoints.js';
export * from './jobs.js';
export * from './generated/prisma/client.js';
