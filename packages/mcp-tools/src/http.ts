/**
 * Serves one MCP request over Streamable HTTP in stateless mode: a new server and transport per
 * POST (no session id, no server-initiated stream), answered as plain JSON. The caller decides
 * the KairosClient, so the tools act with the caller's own credentials.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { KairosClient } from '@kairos/client';
import { createKairosMcpServer } from './server.js';

export async function handleMcpHttpRequest(
  api: KairosClient,
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody: unknown,
  options: { readOnly?: boolean } = {},
): Promise<void> {
  const server = createKairosMcpServer({ api, readOnly: options.readOnly ?? false });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, parsedBody);
}
