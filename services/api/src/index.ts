export { createApp } from './app.js';
export { loadApiConfig, type ApiConfig } from './config.js';
export { startApi, main } from './server.js';
