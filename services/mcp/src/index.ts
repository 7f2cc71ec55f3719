export { loadMcpConfig, type McpConfig } from './config.js';
export {
  DEVICE_GRANT_TYPE,
  DeviceFlowError,
  pollForToken,
  requestDeviceCode,
  type DeviceCode,
  type DeviceFlowOptions,
} from './device-flow.js';
export { DEFAULT_LOGIN_WAIT_MS, DeviceLogin, type DeviceLoginOptions } from './device-login.js';
export { runStdioServer, type StdioServerOptions } from './stdio.js';
export { TokenStore, isTokenLive, type StoredToken } from './token-store.js';
