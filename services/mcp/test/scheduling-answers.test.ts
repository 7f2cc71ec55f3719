/**
 * The MCP scheduling tools answer with the endpoint as it will be scheduled (they wrap the API's
 * scheduling actions, which plan the next run in the request): the structured endpoint's `nextRunAt`
 * and the summary's "next run" are the run the scheduler then stores. Over Streamable HTTP at
 * /api/mcp with an API key, the real scheduler and executor running, the endpoint a local server.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from '../../../test/engine.js';
import { startMcpTestEnv, type JsonBody, type McpTestEnv } from '../../../test/mcp-env.js';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

let env: McpTestEnv;
let client: Client;

beforeAll(async () => {
  env = await startMcpTestEnv();
  const transport = new StreamableHTTPClientTransport(new URL('/api/mcp', env.api.url), {
    requestInit: { headers: { 'x-api-key': env.account.apiKey } },
  });
  client = new Client({ name: 'kairos-answers-test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await env?.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<{ body: JsonBody; text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return { body: result.structuredContent, text };
}

/** The row once the scheduler has recomputed it (its recompute clears scheduleDirtyAt). */
const scheduledRow = (endpointId: string, what: string) =>
  waitFor(
    async () => {
      const row = await env.harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
      return row.scheduleDirtyAt === null && row.lastScheduledAt && row.nextRunAt ? row : null;
    },
    8000,
    what,
  );

it('pauseEndpoint, applyIntervalHint, scheduleOneShot, clearHints and resetFailures answer the next run', async () => {
  const job = (await call('createJob', { name: 'answers' })).body;
  const added = await call('addEndpoint', {
    jobId: job.id,
    name: 'Orders',
    url: `${env.target.origin}/orders`,
    method: 'GET',
    baselineIntervalMs: HOUR_MS,
  });
  const id = added.body.id as string;
  const ranAt = (await scheduledRow(id, 'the run at creation')).lastScheduledAt!.getTime();
  const iso = (ms: number) => new Date(ms).toISOString();

  const pausedUntil = iso(Date.now() + 10 * MINUTE_MS);
  const oneShotInMs = 3 * MINUTE_MS;
  const steps: [string, Record<string, unknown>, (answer: JsonBody) => string][] = [
    ['pauseEndpoint', { id, pausedUntil, reason: 'maintenance' }, () => pausedUntil],
    ['pauseEndpoint', { id, pausedUntil: null }, () => iso(ranAt + HOUR_MS)],
    [
      'applyIntervalHint',
      { id, intervalMs: 5 * MINUTE_MS, ttlMinutes: 60, reason: 'busy' },
      () => iso(ranAt + 5 * MINUTE_MS),
    ],
    ['scheduleOneShot', { id, nextRunInMs: oneShotInMs, reason: 'batch' }, (answer) => answer.nextRunAt],
    ['clearHints', { id }, () => iso(ranAt + HOUR_MS)],
    ['resetFailures', { id }, () => iso(ranAt + HOUR_MS)],
  ];
  for (const [tool, args, expected] of steps) {
    const { body, text } = await call(tool, args);
    const nextRunAt = expected(body);
    expect({ tool, nextRunAt: body.endpoint.nextRunAt }).toEqual({ tool, nextRunAt });
    expect({ tool, summary: text.split('\n')[0] }).toEqual({
      tool,
      summary: expect.stringContaining(`next run ${nextRunAt}`),
    });
    const row = await scheduledRow(id, `the scheduler after ${tool}`);
    expect({ tool, stored: row.nextRunAt!.toISOString() }).toEqual({ tool, stored: nextRunAt });
  }
}, 60_000);
