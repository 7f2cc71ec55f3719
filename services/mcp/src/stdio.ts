/**
 * The stdio MCP server: the Kairos tools over stdin/stdout, talking to the API at KAIROS_URL with
 * KAIROS_API_KEY, or else with a device-flow token (device-login.ts). stdout carries only the
 * protocol: everything for people goes to stderr.
 */
import { hostname } from 'node:os';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { apiKeyCredentials, createKairosClient } from '@kairos/client';
import { TokenStore } from '@kairos/client/node';
import {
  KAIROS_MCP_SERVER_VERSION,
  KAIROS_TOOL_NAMES,
  createKairosMcpServer,
  isReadOnlyCredential,
} from '@kairos/mcp-tools';
import { loadMcpConfig } from './config.js';
import { DEFAULT_LOGIN_WAIT_MS, DeviceLogin } from './device-login.js';

export const log = (message: string): void => {
  process.stderr.write(`kairos-mcp: ${message}\n`);
};

export interface StdioServerOptions {
  env?: NodeJS.ProcessEnv;
  loginWaitMs?: number;
}

export async function runStdioServer(options: StdioServerOptions = {}): Promise<void> {
  // A stray console.log would corrupt the protocol stream: send console output to stderr.
  console.log = console.info = console.debug = console.error;
  const config = loadMcpConfig(options.env);
  const store = new TokenStore(config.tokenFile, (message) => log(`warning: ${message}`));
  const deviceLogin = config.apiKey
    ? null
    : new DeviceLogin({
        apiUrl: config.apiUrl,
        store,
        clientName: `Kairos MCP on ${hostname()}`,
        loginWaitMs: options.loginWaitMs ?? DEFAULT_LOGIN_WAIT_MS,
        log,
      });
  const api = createKairosClient({
    baseUrl: config.apiUrl,
    credentials: deviceLogin ?? apiKeyCredentials(config.apiKey!),
    userAgent: `kairos-mcp/${KAIROS_MCP_SERVER_VERSION}`,
  });
  // An API key that may only read is offered the read tools only (a device sign-in has no credential yet).
  const readOnly = config.apiKey ? await isReadOnlyCredential(api).catch(() => false) : false;
  const server = createKairosMcpServer({ api, readOnly });
  const shutdown = () => {
    deviceLogin?.stop();
    void server.close().finally(() => process.exit(0));
  };
  process.stdin.once('end', shutdown);
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  await server.connect(new StdioServerTransport());
  log(
    `serving ${KAIROS_TOOL_NAMES.length} tools over stdio for ${config.apiUrl} ` +
      `(${deviceLogin ? 'device sign-in' : 'API key'})`,
  );
  await deviceLogin?.start();
}
