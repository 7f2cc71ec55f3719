/**
 * The stdio server as an MCP client runs it: a child process (`node --import tsx main.ts`, as
 * `pnpm --silent mcp` does) against a real API. It signs in by the device flow (the person approves
 * through the API, signed in with a session cookie), then every tool runs against real data.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from '../../../test/engine.js';
import {
  approveDevice,
  asPerson,
  signIn,
  startMcpTestEnv,
  type BrowserSession,
  type McpTestEnv,
} from '../../../test/mcp-env.js';
import { EXPECTED_TOOL_NAMES, exerciseEveryTool, readEveryResource } from './tool-suite.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const USER_CODE = /enter the code ([A-Z]{4}-[A-Z]{4})/g;

let env: McpTestEnv;
let session: BrowserSession;
let tmp: string;
let tokenFile: string;

interface StdioServer {
  client: Client;
  stderr: () => string;
  clientErrors: Error[];
}

async function startStdioServer(extraEnv: Record<string, string>): Promise<StdioServer> {
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--conditions=source', '--import', 'tsx', 'services/mcp/src/main.ts'],
    cwd: REPO_ROOT,
    // HOME in the temp dir: the default token path never touches the real home.
    env: { PATH: process.env.PATH ?? '', HOME: tmp, KAIROS_URL: env.api.url, ...extraEnv },
    stderr: 'pipe',
  });
  transport.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'kairos-stdio-test', version: '1.0.0' });
  const clientErrors: Error[] = [];
  // Any stdout line that is not a protocol message would land here.
  client.onerror = (error) => clientErrors.push(error);
  await client.connect(transport);
  return { client, stderr: () => stderr, clientErrors };
}

const userCodes = (text: string) => [...text.matchAll(USER_CODE)].map((match) => match[1]!);
const readToken = async () => JSON.parse(await readFile(tokenFile, 'utf8')) as Record<string, string>;

let server: StdioServer;

beforeAll(async () => {
  env = await startMcpTestEnv();
  session = await signIn(env, env.account.userId);
  tmp = await mkdtemp(join(tmpdir(), 'kairos-mcp-test-'));
  tokenFile = join(tmp, 'config', 'kairos', 'mcp-token.json');
  server = await startStdioServer({ KAIROS_MCP_TOKEN_FILE: tokenFile });
}, 60_000);

afterAll(async () => {
  await server?.client.close();
  await env?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('signs in by the device flow: the code on stderr, the token cached user-only', async () => {
  const [userCode] = await waitFor(
    async () => (userCodes(server.stderr()).length > 0 ? userCodes(server.stderr()) : null),
    30_000,
    'the user code on stderr',
  );
  expect(server.stderr()).toMatch(/open http:\/\/[^\s]+\/device\?user_code=[A-Z]{4}-[A-Z]{4}/);
  await approveDevice(env, session, userCode!);
  await waitFor(async () => server.stderr().includes('signed in'), 30_000, 'the sign-in to complete');

  expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
  expect((await stat(dirname(tokenFile))).mode & 0o777).toBe(0o700);
  expect(await readToken()).toMatchObject({ apiUrl: env.api.url, tokenType: 'Bearer' });
}, 60_000);

test('lists exactly the Kairos tools, with their documented arguments', async () => {
  const { tools } = await server.client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(EXPECTED_TOOL_NAMES);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  expect(byName.get('applyIntervalHint')!.inputSchema.required).toEqual(
    expect.arrayContaining(['id', 'intervalMs', 'ttlMinutes', 'reason']),
  );
  expect(byName.get('scheduleOneShot')!.inputSchema.required).toEqual(['id', 'nextRunInMs', 'reason']);
  expect(Object.keys(byName.get('getEndpointHealth')!.inputSchema.properties!)).toEqual(['id', 'sinceHours']);
  expect(Object.keys(byName.get('listEndpointRuns')!.inputSchema.properties!)).toEqual(
    expect.arrayContaining(['id', 'limit', 'status']),
  );
  expect(Object.keys(byName.get('createJob')!.inputSchema.properties!)).toEqual(['name', 'description']);
  expect(byName.get('addEndpoint')!.inputSchema.required).toEqual(['jobId', 'name', 'url', 'method']);
  expect(byName.get('getJob')!.annotations).toMatchObject({ readOnlyHint: true });
  expect(byName.get('archiveJob')!.annotations).toMatchObject({ destructiveHint: true });
});

test('calls every tool against the API and returns its errors as tool errors', async () => {
  const called = await exerciseEveryTool(server.client, env, 'stdio');
  expect([...called].sort()).toEqual(EXPECTED_TOOL_NAMES);
}, 90_000);

test('offers the API llms.txt and the guides as resources', async () => {
  await readEveryResource(server.client);
});

test('a revoked token is dropped and the device flow runs again', async () => {
  const before = await readToken();
  const devices = await asPerson(env, session, 'GET', '/api/devices');
  const device = devices.body.find((item: { name: string }) => item.name.startsWith('Kairos MCP on'));
  expect(device).toBeDefined();
  expect((await asPerson(env, session, 'DELETE', `/api/devices/${device.id}`)).status).toBe(200);

  // The call is refused (401), the server signs in again and the call completes once approved.
  const codesBefore = userCodes(server.stderr()).length;
  const pending = server.client.callTool({ name: 'getSigningKey', arguments: {} });
  const codes = await waitFor(
    async () => (userCodes(server.stderr()).length > codesBefore ? userCodes(server.stderr()) : null),
    30_000,
    'a new user code on stderr',
  );
  expect(server.stderr()).toContain('refused (expired or revoked)');
  await approveDevice(env, session, codes.at(-1)!);
  const result = (await pending) as CallToolResult;
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toMatchObject({ hasKey: true });
  const after = await readToken();
  expect(after.accessToken).not.toBe(before.accessToken);
}, 60_000);

test('with KAIROS_API_KEY it uses the key and never signs in', async () => {
  const withKey = await startStdioServer({
    KAIROS_API_KEY: env.account.apiKey,
    KAIROS_MCP_TOKEN_FILE: join(tmp, 'unused.json'),
  });
  try {
    const result = (await withKey.client.callTool({ name: 'listJobs', arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { total: number }).total).toBeGreaterThanOrEqual(1);
    expect(withKey.stderr()).toContain('(API key)');
    expect(userCodes(withKey.stderr())).toEqual([]);
    expect(withKey.clientErrors).toEqual([]);
  } finally {
    await withKey.client.close();
  }
}, 60_000);

test('stdout carried only protocol messages', () => {
  expect(server.clientErrors).toEqual([]);
});
