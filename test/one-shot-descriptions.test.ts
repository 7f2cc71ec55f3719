/**
 * What a one-shot hint does, as every reader is told it: until it runs it replaces the scheduled
 * runs (an active one-shot comes before the interval hint and the baseline in the priority order,
 * packages/core/src/schedule/next-run.ts), then the schedule resumes from that run. It is not an extra
 * run: a model that proposes a time a day ahead silences the endpoint for that day. Each description
 * is read back where its reader gets it: the OpenAPI document and llms.txt from the running api, the
 * MCP tool list and scheduling guide over MCP (Streamable HTTP), the planner's tool definitions and
 * system prompt as sent to the model, the guide's scheduling rules, docs/guide/scheduling.md (the web UI's explanation:
 * services/web/src/components/endpoint-schedule-explain.test.ts).
 */
import { readFile } from 'node:fs/promises';
import { PLANNER_SYSTEM_PROMPT, plannerToolDefinitions } from '@kairos/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startMcpTestEnv, type McpTestEnv } from './mcp-env.js';

/** The words every description of a one-shot carries. */
const REPLACES = 'replaces the scheduled runs';
/** What the descriptions said instead: an extra run beside an unchanged schedule. */
const MISLEADING = [/in addition to/i, /continues as before/i, /extra run/i, /schedule continues\b/i];

let env: McpTestEnv;
beforeAll(async () => {
  env = await startMcpTestEnv();
}, 60_000);
afterAll(() => env?.close());

function expectReplaces(where: string, text: string | undefined) {
  expect({ where, says: text?.includes(REPLACES) }).toEqual({ where, says: true });
  for (const misleading of MISLEADING)
    expect({ where, misleading: misleading.test(text!) }).toEqual({ where, misleading: false });
}

it('the api (OpenAPI document and llms.txt)', async () => {
  const doc = (await (await fetch(new URL('/api/doc', env.api.url))).json()) as {
    paths: Record<string, Record<string, { description: string }>>;
  };
  const description = doc.paths['/api/endpoints/{endpointId}/hints/oneshot']!.post!.description;
  expectReplaces('POST /api/endpoints/{endpointId}/hints/oneshot', description);
  const llms = await (await fetch(new URL('/api/llms.txt', env.api.url))).text();
  expect(llms).toContain(description);
});

it('the MCP tool and the scheduling guide', async () => {
  const transport = new StreamableHTTPClientTransport(new URL('/api/mcp', env.api.url), {
    requestInit: { headers: { 'x-api-key': env.account.apiKey } },
  });
  const client = new Client({ name: 'kairos-one-shot-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expectReplaces('scheduleOneShot', tools.find((tool) => tool.name === 'scheduleOneShot')?.description);
    const { resources } = await client.listResources();
    const guide = resources.find((resource) => resource.uri.includes('scheduling'))!;
    const [content] = (await client.readResource({ uri: guide.uri })).contents;
    expectReplaces('the scheduling guide', (content as { text: string }).text);
  } finally {
    await client.close();
  }
});

it("the planner's tool, its nextRunAt field and the system prompt", () => {
  const tool = plannerToolDefinitions().find((definition) => definition.name === 'propose_next_time')!;
  expectReplaces('propose_next_time', tool.description);
  const nextRunAt = (tool.input_schema.properties as Record<string, { description: string }>).nextRunAt!;
  expect(nextRunAt.description).toMatch(/no scheduled run happens before it/);
  expectReplaces('the system prompt', PLANNER_SYSTEM_PROMPT);
});

it("the guide's scheduling rules", async () => {
  const rules = await readFile(new URL('../docs/guide/scheduling.md', import.meta.url), 'utf8');
  expectReplaces('docs/guide/scheduling.md', rules);
});
