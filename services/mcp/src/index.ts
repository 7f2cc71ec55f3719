export { loadMcpConfig, type McpConfig } from './config.js';
export {
  DEVICE_GRANT_TYPE,
  DeviceFlowError,
  TokenStore,
  isTokenLive,
  pollForToken,
  requestDeviceCode,
  type DeviceCode,
  type DeviceFlowOptions,
  type StoredToken,
} from '@kairos/client/node';
export { DEFAULT_LOGIN_WAIT_MS, DeviceLogin, type DeviceLoginOptions } from './device-login.js';
export { runStdioServer, type StdioServerOptions } from './stdio.js';
