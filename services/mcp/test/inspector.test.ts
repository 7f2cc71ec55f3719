/**
 * Interoperability with the official MCP Inspector (`@modelcontextprotocol/inspector --cli`, pinned
 * in the root package.json), not only our own SDK client: over stdio (the server of `pnpm mcp`, with
 * an API key) and over Streamable HTTP (the api's POST /api/mcp), it lists the tools and calls
 * createJob and addEndpoint; the test asserts on the Inspector's JSON output and on the API.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startMcpTestEnv, type JsonBody, type McpTestEnv } from '../../../test/mcp-env.js';
import { EXPECTED_TOOL_NAMES } from './tool-suite.js';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const INSPECTOR = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

let env: McpTestEnv;
let home: string;

beforeAll(async () => {
  env = await startMcpTestEnv();
  home = await mkdtemp(join(tmpdir(), 'kairos-inspector-'));
}, 60_000);

afterAll(async () => {
  await env?.close();
  await rm(home, { recursive: true, force: true });
});

/** One Inspector CLI invocation: the `result` of its single JSON object on stdout (`--format json`). */
async function inspector(target: string[], args: string[]): Promise<JsonBody> {
  const { stdout } = await run(
    process.execPath,
    [INSPECTOR, '--cli', '--format', 'json', '--quiet', '--connect-timeout', '60000', ...args, '--', ...target],
    {
      cwd: REPO_ROOT,
      // HOME in a temp dir: the Inspector's catalog and secret files never touch the real home.
      env: { PATH: process.env.PATH ?? '', HOME: home },
      timeout: 60_000,
    },
  );
  const output = JSON.parse(stdout) as { result?: JsonBody; error?: unknown };
  expect(output.error).toBeUndefined();
  return output.result;
}

/** The stdio server exactly as `pnpm mcp` starts it, pointed at the test api with an API key. */
const stdio = () => [
  '-e',
  `KAIROS_URL=${env.api.url}`,
  '-e',
  `KAIROS_API_KEY=${env.account.apiKey}`,
  '-e',
  `HOME=${home}`,
  '--transport',
  'stdio',
];
const stdioTarget = [process.execPath, '--conditions=source', '--import', 'tsx', 'services/mcp/src/main.ts'];

const http = () => ['--transport', 'http', '--header', `x-api-key: ${env.account.apiKey}`];
const httpTarget = () => [`${env.api.url}/api/mcp`];

describe.each([
  ['stdio', stdio, () => stdioTarget],
  ['Streamable HTTP', http, httpTarget],
])('MCP Inspector CLI over %s', (label, options, target) => {
  /** `--method tools/call`: the tool's structured result (or its JSON text), which must not be an error. */
  const callTool = async (name: string, args: Record<string, unknown>): Promise<JsonBody> => {
    const result = await inspector(target(), [
      ...options(),
      '--method',
      'tools/call',
      '--tool-name',
      name,
      '--tool-args-json',
      JSON.stringify(args),
    ]);
    expect(result.isError).toBeFalsy();
    return result.structuredContent ?? JSON.parse(result.content[0].text);
  };

  it('lists the tools, creates a job and adds an endpoint', async () => {
    const listed = await inspector(target(), [...options(), '--method', 'tools/list']);
    expect(listed.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(EXPECTED_TOOL_NAMES);

    const job = await callTool('createJob', { name: `Inspector ${label}`, description: 'made by the MCP Inspector' });
    expect(job).toMatchObject({ name: `Inspector ${label}`, status: 'active' });

    const endpoint = await callTool('addEndpoint', {
      jobId: job.id,
      name: 'Inspector target',
      url: `${env.target.origin}/inspector`,
      method: 'GET',
      baselineIntervalMs: 3_600_000,
    });
    expect(endpoint).toMatchObject({ jobId: job.id, name: 'Inspector target', baselineIntervalMs: 3_600_000 });

    // What the tools did is in the account, read back through the API.
    const stored = await env.harness.client(env.account.apiKey).get(`/api/endpoints/${endpoint.id}`);
    expect(stored.body).toMatchObject({ id: endpoint.id, jobId: job.id, url: `${env.target.origin}/inspector` });
  }, 180_000);
});
