/**
 * The Kairos MCP server as a library: every tool and resource over one KairosClient. The stdio bin
 * (services/mcp) and the API's Streamable HTTP mount (/api/mcp) both build it; only their
 * credentials differ (a device-flow token or API key, or the caller's own headers).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { KairosClient } from '@kairos/client';
import { registerKairosResources } from './resources.js';
import { KAIROS_TOOLS } from './tools/index.js';

export const KAIROS_MCP_SERVER_NAME = 'kairos';
export const KAIROS_MCP_SERVER_VERSION = '0.1.0';

const INSTRUCTIONS =
  'Kairos schedules HTTP requests (endpoints, grouped in jobs) and adapts their schedules. ' +
  'Every tool acts on the signed-in account through the Kairos API. Read the resource ' +
  'kairos://guides/getting-started first; kairos://guides/scheduling explains hints and backoff. ' +
  'Tool errors start with the API error code (VALIDATION_ERROR, NOT_FOUND, CONFLICT, QUOTA_EXCEEDED, ' +
  'RATE_LIMITED, UNAUTHORIZED).';

export interface KairosMcpServerOptions {
  api: KairosClient;
}

export function createKairosMcpServer({ api }: KairosMcpServerOptions): McpServer {
  const server = new McpServer(
    { name: KAIROS_MCP_SERVER_NAME, version: KAIROS_MCP_SERVER_VERSION },
    { instructions: INSTRUCTIONS },
  );
  for (const tool of KAIROS_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        ...(tool.output ? { outputSchema: tool.output } : {}),
        annotations: tool.annotations,
      },
      (args: unknown) => tool.call(api, args),
    );
  }
  registerKairosResources(server, api);
  return server;
}
