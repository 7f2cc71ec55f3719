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
  /**
   * Offer only the read tools (annotations.readOnlyHint): for a read-scoped API key or a viewer,
   * whose every write the API would refuse anyway (403 FORBIDDEN).
   */
  readOnly?: boolean;
}

/**
 * Whether the client's credential may only read (a read-scoped API key, or a viewer): asks
 * GET /api/auth/session. A credential the answer does not describe (a key of no user) gets every tool.
 */
export async function isReadOnlyCredential(api: KairosClient): Promise<boolean> {
  const { data } = await api.GET('/api/auth/session', {});
  return data ? data.scope === 'read' || data.memberRole === 'viewer' : false;
}

/** The tools a credential is offered: all of them, or only the read tools. */
export function offeredTools(readOnly: boolean): typeof KAIROS_TOOLS {
  return readOnly ? KAIROS_TOOLS.filter((tool) => tool.annotations.readOnlyHint === true) : KAIROS_TOOLS;
}

export function createKairosMcpServer({ api, readOnly = false }: KairosMcpServerOptions): McpServer {
  const server = new McpServer(
    { name: KAIROS_MCP_SERVER_NAME, version: KAIROS_MCP_SERVER_VERSION },
    { instructions: INSTRUCTIONS },
  );
  for (const tool of offeredTools(readOnly)) {
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
