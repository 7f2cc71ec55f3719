/**
 * A read-only credential (an API key of scope read, or a viewer's key) is offered the read tools
 * only, over the API's /api/mcp and over stdio; a write key is offered every tool.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApiKey } from '@kairos/db';
import { addMembership } from '@kairos/db/system';
import { startMcpTestEnv, type McpTestEnv } from '../../../test/mcp-env.js';
import { EXPECTED_TOOL_NAMES } from './tool-suite.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Written out: the tools that change nothing. */
const READ_TOOLS = [
  'backtestEndpoint',
  'getAnalysisSession',
  'getDashboard',
  'getEndpoint',
  'getEndpointHealth',
  'getJob',
  'getRun',
  'getSigningKey',
  'listAnalysisSessions',
  'listEndpoints',
  'listEndpointRuns',
  'listJobs',
  'listNotificationChannels',
  'listNotifications',
  'upcomingRuns',
];

let env: McpTestEnv;
const clients: Client[] = [];

beforeAll(async () => {
  env = await startMcpTestEnv();
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await env?.close();
});

async function toolsOverHttp(apiKey: string): Promise<string[]> {
  const transport = new StreamableHTTPClientTransport(new URL('/api/mcp', env.api.url), {
    requestInit: { headers: { 'x-api-key': apiKey } },
  });
  const client = new Client({ name: 'kairos-read-only-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

it('offers a read-scoped key and a viewer only the read tools over HTTP', async () => {
  const readKey = await createApiKey(env.harness.db, env.account.accountId, 'agent', env.account.userId, {
    scope: 'read',
  });
  const readTools = await toolsOverHttp(readKey.raw);
  expect(readTools).toEqual([...READ_TOOLS].sort());
  expect(readTools.every((name) => EXPECTED_TOOL_NAMES.includes(name))).toBe(true);

  const viewer = await env.harness.createAccount();
  await addMembership(env.harness.db, { userId: viewer.userId, accountId: env.account.accountId, role: 'viewer' });
  const viewerKey = await createApiKey(env.harness.db, env.account.accountId, 'viewer', viewer.userId);
  expect(await toolsOverHttp(viewerKey.raw)).toEqual([...READ_TOOLS].sort());

  expect(await toolsOverHttp(env.account.apiKey)).toEqual(EXPECTED_TOOL_NAMES);
}, 60_000);

it('offers a read-scoped key only the read tools over stdio', async () => {
  const readKey = await createApiKey(env.harness.db, env.account.accountId, 'stdio agent', env.account.userId, {
    scope: 'read',
  });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--conditions=source', '--import', 'tsx', 'services/mcp/src/main.ts'],
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: REPO_ROOT, KAIROS_URL: env.api.url, KAIROS_API_KEY: readKey.raw },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'kairos-read-only-stdio', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS].sort());
}, 60_000);
