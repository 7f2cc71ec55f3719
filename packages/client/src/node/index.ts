/**
 * The parts of the client that need Node.js: the device-flow sign-in (RFC 8628) and the file that
 * caches its token. Used by the MCP server and the CLI.
 */
export {
  DEVICE_GRANT_TYPE,
  DeviceFlowError,
  SLOW_DOWN_STEP_SEC,
  pollForToken,
  requestDeviceCode,
  type DeviceCode,
  type DeviceFlowOptions,
  type IssuedToken,
} from './device-flow.js';
export { TokenStore, isTokenLive, type StoredToken } from './token-store.js';
