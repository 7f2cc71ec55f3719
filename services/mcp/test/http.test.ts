/**
 * The MCP tools mounted on the API at /api/mcp (Streamable HTTP, stateless), called with a
 * device-flow bearer token and with an API key: the same tool pass as over stdio. The tools call
 * the API with the caller's own credentials, so another account's ids are NOT_FOUND.
 */
import { endpointConfig } from '@kairos/db';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  obtainAccessToken,
  signIn,
  startMcpTestEnv,
  type BrowserSession,
  type McpTestEnv,
} from '../../../test/mcp-env.js';
import { EXPECTED_TOOL_NAMES, exerciseEveryTool, readEveryResource } from './tool-suite.js';

let env: McpTestEnv;
let session: BrowserSession;
const clients: Client[] = [];

beforeAll(async () => {
  env = await startMcpTestEnv();
  session = await signIn(env, env.account.userId);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await env?.close();
});

async function connect(headers: Record<string, string>): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('/api/mcp', env.api.url), { requestInit: { headers } });
  const client = new Client({ name: 'kairos-http-test', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  clients.push(client);
  expect(errors).toEqual([]);
  return client;
}

const mcpPost = (headers: Record<string, string>) =>
  fetch(new URL('/api/mcp', env.api.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });

test('with a device-flow bearer token: every tool, the resources', async () => {
  const token = await obtainAccessToken(env, session);
  const client = await connect({ authorization: `Bearer ${token}` });
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(EXPECTED_TOOL_NAMES);
  const called = await exerciseEveryTool(client, env, 'http bearer');
  expect([...called].sort()).toEqual(EXPECTED_TOOL_NAMES);
  await readEveryResource(client);
}, 90_000);

test('with an API key (x-api-key): every tool', async () => {
  const client = await connect({ 'x-api-key': env.account.apiKey });
  const called = await exerciseEveryTool(client, env, 'http key');
  expect([...called].sort()).toEqual(EXPECTED_TOOL_NAMES);
}, 90_000);

test("acts as the caller: another account's job is NOT_FOUND", async () => {
  const mine = await connect({ 'x-api-key': env.account.apiKey });
  const job = (await mine.callTool({ name: 'createJob', arguments: { name: 'Mine' } })) as CallToolResult;
  const jobId = (job.structuredContent as { id: string }).id;
  const other = await env.harness.createAccount({ tier: 'enterprise' });
  const theirs = await connect({ 'x-api-key': other.apiKey });
  const result = (await theirs.callTool({ name: 'getJob', arguments: { id: jobId } })) as CallToolResult;
  expect(result.isError).toBe(true);
  expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^NOT_FOUND: /) });
});

test('answers a tool argument with U+0000 or a lone surrogate as VALIDATION_ERROR naming the field', async () => {
  const client = await connect({ 'x-api-key': env.account.apiKey });
  for (const name of ['a\u0000b', 'x\uD800']) {
    const result = (await client.callTool({ name: 'createJob', arguments: { name } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^VALIDATION_ERROR: name: /) });
  }
});

test('masks secret header values in every tool answer (key, signature, credential, session, private)', async () => {
  const client = await connect({ 'x-api-key': env.account.apiKey });
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    return result;
  };
  const secrets = { 'X-Custom-Key': 'k1', 'X-Signature': 's1', 'Private-Key': 'p1', 'X-Access-Key': 'a1' };
  const masked = Object.fromEntries(Object.keys(secrets).map((name) => [name, '********']));
  const job = (await call('createJob', { name: 'Masked headers' })).structuredContent as { id: string };
  const added = await call('addEndpoint', {
    jobId: job.id,
    name: 'With secrets',
    url: `${env.target.origin}/orders`,
    method: 'GET',
    baselineIntervalMs: 3_600_000,
    headersJson: { ...secrets, Accept: 'application/json' },
  });
  const endpointId = (added.structuredContent as { id: string }).id;
  const answers = [
    added,
    await call('getEndpoint', { id: endpointId }),
    await call('listEndpoints', { jobId: job.id }),
    await call('updateEndpoint', { id: endpointId, headersJson: { ...masked, Accept: 'text/csv' } }),
  ];
  expect((answers[1]!.structuredContent as { headersJson: unknown }).headersJson).toEqual({
    ...masked,
    Accept: 'application/json',
  });
  for (const answer of answers) {
    expect(JSON.stringify(answer)).not.toMatch(/"(k1|s1|p1|a1)"/);
    expect(JSON.stringify(answer)).toContain('"X-Custom-Key":"********"');
  }
  // Sent back masked, each value stays as stored (sealed; opened with the master key).
  const stored = await env.harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
  expect(stored.headers).toEqual({ ...masked, Accept: 'text/csv' });
  expect(endpointConfig(stored, env.harness.masterKey).headers).toEqual({ ...secrets, Accept: 'text/csv' });
});

test('refuses requests without credentials, with bad ones and with only a session cookie (401)', async () => {
  const attempts: Record<string, string>[] = [
    {},
    { authorization: 'Bearer kat_not-a-token' },
    { 'x-api-key': 'nope' },
    { cookie: session.cookie, 'x-csrf-token': session.csrfToken }, // a signed-in browser
  ];
  for (const headers of attempts) {
    const response = await mcpPost(headers);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
  }
});

test('is stateless: GET and DELETE answer 405', async () => {
  for (const method of ['GET', 'DELETE']) {
    const response = await fetch(new URL('/api/mcp', env.api.url), {
      method,
      headers: { 'x-api-key': env.account.apiKey, accept: 'text/event-stream' },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  }
});
