/**
 * POST /api/mcp: the Kairos MCP tools over Streamable HTTP (stateless: one server per request,
 * JSON answers, no sessions). A protocol endpoint, so it is not in the RouteRegistry / OpenAPI.
 *
 * Auth is the API's own: the caller sends x-api-key or Authorization: Bearer, and the tools call
 * this API over loopback with those same headers, so tenancy, quotas and rate limits are exactly
 * what the caller would get calling the routes directly (each tool call also counts against the
 * account's rate limit, as does the MCP request itself). A browser session cookie is not accepted
 * here (it would need CSRF tokens on every tool call): 401.
 */
import { AppError } from '@kairos/core';
import { createKairosClient, staticCredentials } from '@kairos/client';
import { KAIROS_MCP_SERVER_VERSION, handleMcpHttpRequest } from '@kairos/mcp-tools';
import type { Request, Response, Router } from 'express';
import type { ApiDeps } from './deps.js';

export const MCP_PATH = '/api/mcp';

/** The caller's credential headers, when it authenticated with one (not a session cookie). */
function forwardedCredentials(req: Request): Record<string, string> | null {
  if (req.auth?.actor.type === 'api_key' && typeof req.headers['x-api-key'] === 'string') {
    return { 'x-api-key': req.headers['x-api-key'] };
  }
  if (req.auth?.actor.type === 'access_token' && req.headers.authorization) {
    return { authorization: req.headers.authorization };
  }
  return null;
}

/**
 * This server, as reached by the request: the local address and port it arrived on. Plain HTTP:
 * a TLS-terminating proxy in front is fine, TLS inside this process is not supported here.
 */
function loopbackUrl(req: Request): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  const host = address.startsWith('::ffff:') ? address.slice(7) : address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${req.socket.localPort}`;
}

export function registerMcpRoute(router: Router, deps: ApiDeps): void {
  router.post(MCP_PATH, async (req: Request, res: Response) => {
    const credentials = forwardedCredentials(req);
    if (!credentials) {
      throw new AppError('UNAUTHORIZED', 'the MCP endpoint needs x-api-key or Authorization: Bearer <access token>');
    }
    const api = createKairosClient({
      baseUrl: loopbackUrl(req),
      // The caller's own rate limit answers 429 to the caller's tool call; waiting here would hold
      // the request open for the caller's whole window.
      retry: false,
      credentials: staticCredentials(credentials),
      headers: req.requestId ? { 'x-request-id': req.requestId } : {},
      userAgent: `kairos-mcp-http/${KAIROS_MCP_SERVER_VERSION}`,
    });
    try {
      // A read-only credential (read-scoped key, viewer) is offered the read tools only.
      const readOnly = req.auth?.scope === 'read' || req.auth?.role === 'viewer';
      await handleMcpHttpRequest(api, req, res, req.body, { readOnly });
    } catch (error) {
      if (!res.headersSent) throw error;
      deps.logger.warn('MCP request failed after the answer started', { error: (error as Error).message });
    }
  });
  // Stateless: no server-initiated stream (GET) and no session to end (DELETE), so both answer 405,
  // as MCP's Streamable HTTP transport defines; the body is a JSON-RPC error as MCP clients expect, not an API error.
  router.all(MCP_PATH, (_req: Request, res: Response) => {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: POST only (stateless MCP)' },
        id: null,
      });
  });
}
