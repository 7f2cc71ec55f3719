/**
 * The OpenAPI 3.1 document, built from the route registry's zod schemas (the same objects the
 * server validates with), so it cannot drift from the implementation.
 */
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { z } from 'zod';
import { leastRole, type RegisteredRoute } from '../http/route.js';

export const API_VERSION = '0.1.0';

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');

export function buildOpenApiDocument(routes: RegisteredRoute[], serverUrl?: string): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const { spec } of routes) {
    const pathParams = [...spec.path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1]!);
    const operation: ZodOpenApiOperationObject = {
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: spec.tags,
      // The least role that may call the operation (a read-scoped key acts as a viewer).
      ...(spec.public ? { security: [] } : { 'x-kairos-role': leastRole(spec) }),
      // Credential management: an API key (or the web UI's session), never a device access token.
      ...(spec.refusesAccessTokens ? { security: [{ apiKey: [] }] } : {}),
      requestParams: {
        ...(pathParams.length > 0
          ? {
              path: z.object(
                Object.fromEntries(pathParams.map((name) => [name, z.string().meta({ description: 'opaque id' })])),
              ),
            }
          : {}),
        ...(spec.query ? { query: spec.query as z.ZodObject } : {}),
      },
      ...(spec.body
        ? {
            requestBody: {
              required: !spec.bodyOptional,
              content: Object.fromEntries(
                (spec.bodyContentTypes ?? ['application/json']).map((type) => [type, { schema: spec.body }]),
              ),
            },
          }
        : {}),
      responses: Object.fromEntries(
        Object.entries(spec.responses).map(([status, response]) => [
          status,
          {
            description: response.description,
            ...(response.schema ? { content: { 'application/json': { schema: response.schema } } } : {}),
            ...(response.headers
              ? {
                  headers: z.object(
                    Object.fromEntries(
                      Object.entries(response.headers).map(([name, description]) => [
                        name,
                        z.string().meta({ description }),
                      ]),
                    ),
                  ),
                }
              : {}),
          },
        ]),
      ),
    };
    const path = toOpenApiPath(spec.path);
    paths[path] = { ...paths[path], [spec.method]: operation };
  }

  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Kairos API',
      version: API_VERSION,
      description:
        'Adaptive HTTP job scheduler. Authenticate with `x-api-key: <API_KEY>` or `Authorization: Bearer <ACCESS_TOKEN>` ' +
        '(a device access token cannot manage API keys or devices: 403 there). ' +
        'The web UI signs in with a session cookie; cookie-authenticated writes need the `X-CSRF-Token` header ' +
        '(GET /api/auth/session). Errors are `{ "error": { "code", "message", "details" } }` (the device-flow token ' +
        'endpoint answers OAuth errors, as RFC 8628 requires). Authenticated responses carry `X-RateLimit-Limit` ' +
        '(requests per minute), `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix seconds); over the limit: 429 ' +
        'RATE_LIMITED with `Retry-After`. Lists page with `limit` and `offset` and answer `X-Total-Count` and an ' +
        'RFC 8288 `Link` header (rel first, prev, next, last; follow next until it is absent to read every item). ' +
        "Response rules: an endpoint's `successWhen` decides success from the response and its `rules` act after " +
        'every run at no token cost (an interval while a rule keeps matching, a pause, one run of a sibling endpoint, ' +
        'a planner analysis); the endpoint\'s `ruleState` names the rule whose interval is in force ("runs every 1 min ' +
        "because rule 'backlog high' matched at …\"), each run lists `rulesMatched`, and " +
        '`POST /api/endpoints/{endpointId}/backtest` replays recorded runs through proposed rules without saving. ' +
        'The same operations are MCP tools at `POST /api/mcp` (Streamable HTTP, ' +
        'stateless, same credentials; not listed below).',
    },
    // Without KAIROS_PUBLIC_URL the document is served by the api itself: a relative server (`/`)
    // resolves against wherever /api/doc was fetched (OpenAPI 3.1 §4.8.5), and clients and linters
    // (Redocly's no-empty-servers) get a base URL.
    servers: [{ url: serverUrl ?? '/' }],
    security: [{ apiKey: [] }, { bearer: [] }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
    paths,
  });
}
