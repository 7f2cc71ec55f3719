/**
 * Test helper (not a test): one pass over every Kairos MCP tool through a connected MCP client,
 * against the real API, asserting each result. The stdio and the Streamable HTTP tests run it.
 */
import { newId } from '@kairos/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { seedAnalysisSession, type JsonBody, type McpTestEnv } from '../../../test/mcp-env.js';

/** The exact tool names, sorted (docs/guide/mcp.md lists all 41). */
export const EXPECTED_TOOL_NAMES = [
  'addEndpoint',
  'applyIntervalHint',
  'archiveEndpoint',
  'archiveJob',
  'backfillEndpoint',
  'backtestEndpoint',
  'clearHints',
  'createJob',
  'createNotificationChannel',
  'createSigningKey',
  'deleteNotificationChannel',
  'getAnalysisSession',
  'getDashboard',
  'getEndpoint',
  'getEndpointHealth',
  'getJob',
  'getRun',
  'getSigningKey',
  'listAnalysisSessions',
  'listEndpointRuns',
  'listEndpoints',
  'listJobs',
  'listNotificationChannels',
  'listNotifications',
  'pauseEndpoint',
  'pauseJob',
  'replayRun',
  'resetFailures',
  'resumeJob',
  'revokePreviousSigningKey',
  'rotateSigningKey',
  'runEndpointNow',
  'scheduleOneShot',
  'setFailureThresholds',
  'setHostLimits',
  'setSigningKeyGraceMinutes',
  'testEndpoint',
  'testNotificationChannel',
  'upcomingRuns',
  'updateEndpoint',
  'updateJob',
];

type Structured = JsonBody;

const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

const MINUTE_MS = 60_000;

/** Calls every tool; returns the names called successfully. */
export async function exerciseEveryTool(client: Client, env: McpTestEnv, label: string): Promise<Set<string>> {
  const called = new Set<string>();
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Structured> => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
    expect(result.structuredContent).toBeDefined();
    // The text rendering carries the same JSON after the summary line.
    expect(textOf(result)).toContain(JSON.stringify(result.structuredContent, null, 2));
    called.add(name);
    return result.structuredContent;
  };
  const callFailing = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError).toBe(true);
    return textOf(result);
  };

  // Signing keys: the account's key (made at account setup) is removed so create can succeed once.
  await env.harness.db.prisma.signingKey.deleteMany({ where: { accountId: env.account.accountId } });
  expect(await call('getSigningKey')).toEqual({
    hasKey: false,
    keyPrefix: null,
    createdAt: null,
    rotatedAt: null,
    previousKeyPrefix: null,
    previousExpiresAt: null,
    revealedAt: null,
  });
  const created = await call('createSigningKey');
  expect(created.rawKey).toMatch(/^[0-9a-f]{64}$/);
  expect(created.keyPrefix).toBe(created.rawKey.slice(0, created.keyPrefix.length));
  expect(await callFailing('createSigningKey', {})).toMatch(/^CONFLICT: /);
  const rotated = await call('rotateSigningKey');
  expect(rotated.rawKey).toMatch(/^[0-9a-f]{64}$/);
  expect(rotated.rawKey).not.toBe(created.rawKey);
  expect(await call('getSigningKey')).toMatchObject({ hasKey: true, keyPrefix: rotated.keyPrefix });
  expect((await call('getSigningKey')).rotatedAt).not.toBeNull();
  // The grace window: the next rotation keeps the replaced key signing until revoked.
  expect(await callFailing('revokePreviousSigningKey', {})).toMatch(/^NOT_FOUND: /);
  expect(await call('setSigningKeyGraceMinutes', { minutes: 60 })).toMatchObject({ signingKeyGraceMinutes: 60 });
  const rotatedInWindow = await call('rotateSigningKey');
  expect(rotatedInWindow).toMatchObject({
    previousKeyPrefix: rotated.keyPrefix,
    previousExpiresAt: expect.any(String),
  });
  expect(await call('revokePreviousSigningKey')).toMatchObject({
    keyPrefix: rotatedInWindow.keyPrefix,
    previousKeyPrefix: null,
  });
  expect(await call('setSigningKeyGraceMinutes', { minutes: 0 })).toMatchObject({ signingKeyGraceMinutes: 0 });

  // Notifications: a channel, a test notification listed, the thresholds, deletion.
  const channel = await call('createNotificationChannel', {
    name: `ops ${label}`,
    type: 'webhook',
    url: 'https://hooks.test.invalid/kairos',
    events: ['endpoint.failing', 'endpoint.recovered'],
  });
  expect(channel).toMatchObject({ type: 'webhook', events: ['endpoint.failing', 'endpoint.recovered'] });
  expect(await callFailing('createNotificationChannel', { name: 'x', type: 'webhook', url: 'ftp://x' })).toMatch(
    /^VALIDATION_ERROR: /,
  );
  expect((await call('listNotificationChannels', {})).channels.map((item: Structured) => item.id)).toContain(
    channel.id,
  );
  const sent = await call('testNotificationChannel', { channelId: channel.id });
  expect(sent).toMatchObject({ event: 'test', channelId: channel.id });
  const notifications = await call('listNotifications', { channelId: channel.id });
  expect(notifications.notifications.map((item: Structured) => item.id)).toEqual([sent.id]);
  expect(await call('setFailureThresholds', { notifyFailureThreshold: 4, autoPauseAfterFailures: 10 })).toMatchObject({
    notifyFailureThreshold: 4,
    autoPauseAfterFailures: 10,
  });
  expect(await call('setFailureThresholds', { autoPauseAfterFailures: null })).toMatchObject({
    autoPauseAfterFailures: null,
  });
  const hostLimits = [{ host: 'api.example.com', maxPerSecond: 5, maxConcurrent: 2 }];
  expect(await call('setHostLimits', { hostLimits })).toMatchObject({ hostLimits });
  expect(await call('setHostLimits', { hostLimits: [] })).toMatchObject({ hostLimits: [] });
  expect((await call('deleteNotificationChannel', { channelId: channel.id })).channel.id).toBe(channel.id);

  // Jobs.
  const job = await call('createJob', { name: `Orders ${label}`, description: 'Keeps orders in step' });
  expect(job).toMatchObject({ name: `Orders ${label}`, description: 'Keeps orders in step', status: 'active' });
  const jobs = await call('listJobs', { limit: 100 });
  expect(jobs.jobs.map((item: Structured) => item.id)).toContain(job.id);
  expect(jobs.total).toBeGreaterThanOrEqual(1);
  // Paging: an agent reaches every item by following nextOffset, one item a call here.
  await call('createJob', { name: `Spare ${label}` });
  const firstPage = (await client.callTool({ name: 'listJobs', arguments: { limit: 1 } })) as CallToolResult;
  expect(firstPage.structuredContent).toMatchObject({ hasMore: true, nextOffset: 1 });
  expect(textOf(firstPage)).toContain(
    `1 of ${firstPage.structuredContent!.total} jobs; more: call again with offset 1.`,
  );
  const walked: string[] = [];
  let nextOffset: number | null = 0;
  for (let guard = 0; nextOffset !== null && guard < 50; guard += 1) {
    const page = await call('listJobs', { limit: 1, offset: nextOffset });
    walked.push(...page.jobs.map((item: Structured) => item.id));
    expect(page.hasMore).toBe(page.nextOffset !== null);
    nextOffset = page.nextOffset;
  }
  expect(nextOffset).toBeNull();
  expect(walked).toEqual((await call('listJobs', { limit: 1000 })).jobs.map((item: Structured) => item.id));
  expect(await call('getJob', { id: job.id })).toMatchObject({ id: job.id, endpointCount: 0 });
  expect(await call('updateJob', { id: job.id, description: 'Pulls orders from the shop' })).toMatchObject({
    id: job.id,
    description: 'Pulls orders from the shop',
  });

  // Endpoints.
  const endpoint = await call('addEndpoint', {
    jobId: job.id,
    name: 'Pull orders',
    url: `${env.target.origin}/orders`,
    method: 'get',
    baselineIntervalMs: 3_600_000,
    minIntervalMs: 1000,
    description: 'Poll faster while the queue is non-empty',
  });
  expect(endpoint).toMatchObject({ jobId: job.id, name: 'Pull orders', method: 'GET', baselineIntervalMs: 3_600_000 });
  const listed = await call('listEndpoints', { jobId: job.id });
  expect(listed).toMatchObject({ total: 1, hasMore: false, nextOffset: null });
  expect(listed.endpoints[0].id).toBe(endpoint.id);
  expect(await call('getEndpoint', { id: endpoint.id })).toMatchObject({ id: endpoint.id, status: 'active' });
  expect(
    await call('updateEndpoint', { id: endpoint.id, timeoutMs: 5000, jitterMs: 60_000, retry: { attempts: 2 } }),
  ).toMatchObject({
    id: endpoint.id,
    timeoutMs: 5000,
    jitterMs: 60_000,
    retry: { attempts: 2, backoffBaseMs: 1000, backoffCapMs: 30_000 },
  });
  // An API refusal keeps the API's code and the field it names.
  const refused = await callFailing('updateEndpoint', {
    id: endpoint.id,
    jobId: job.id,
    baselineCron: '*/5 * * * *',
    baselineIntervalMs: 60_000,
  });
  expect(refused).toMatch(/^VALIDATION_ERROR: /);
  expect(refused).toContain('baselineCron');

  // Runs, health, test.
  const test = await call('testEndpoint', { id: endpoint.id });
  expect(test).toMatchObject({ status: 'success', statusCode: 200, responseBody: { ok: true, queue: 3 } });
  const run = await call('getRun', { id: test.runId });
  expect(run).toMatchObject({ id: test.runId, endpointId: endpoint.id, source: 'test', status: 'success' });
  const runs = await call('listEndpointRuns', { id: endpoint.id, limit: 50, status: 'success' });
  expect(Array.isArray(runs.runs)).toBe(true);
  expect(runs.runs.map((item: Structured) => item.id)).toContain(test.runId);
  expect(runs.runs.every((item: Structured) => item.status === 'success')).toBe(true);
  expect((await call('listEndpointRuns', { id: endpoint.id, status: 'failed' })).runs).toEqual([]);
  const health = await call('getEndpointHealth', { id: endpoint.id, sinceHours: 1 });
  expect(health).toMatchObject({ endpointId: endpoint.id, sinceHours: 1, failureCount: 0, failureStreak: 0 });
  expect(health.totalRuns).toBeGreaterThanOrEqual(1);

  // Run now, replay and backfill answer at once with what they queued.
  const queued = await call('runEndpointNow', { id: endpoint.id, headers: { 'X-Asked-By': 'mcp' } });
  expect(queued).toMatchObject({ endpointId: endpoint.id, source: 'manual', replayOf: null });
  expect(await call('replayRun', { id: test.runId })).toMatchObject({ source: 'manual', replayOf: test.runId });
  const backfillTo = new Date(Date.now() - 5 * MINUTE_MS).toISOString();
  const backfillFrom = new Date(Date.now() - 8 * MINUTE_MS).toISOString();
  const backfilled = await call('backfillEndpoint', { id: endpoint.id, from: backfillFrom, to: backfillTo });
  expect(backfilled.queued).toBe(backfilled.slots);
  expect(await call('backfillEndpoint', { id: endpoint.id, from: backfillFrom, to: backfillTo })).toEqual({
    slots: backfilled.slots,
    queued: 0,
  });

  // Response rules: tried with backtestEndpoint (the target answers ok: true, so no status changes), set
  // with updateEndpoint; a Test now run records the rules it matches.
  const rules = [
    { name: 'queue long', when: { all: [{ path: '$.queue', op: 'gt', value: 2 }] }, then: { analyse: true } },
  ];
  const successWhen = { all: [{ path: '$.ok', op: 'eq', value: true }] };
  expect(await call('backtestEndpoint', { id: endpoint.id, rules, successWhen })).toMatchObject({
    runsReplayed: expect.any(Number),
    statusChanges: [],
  });
  expect(await call('updateEndpoint', { id: endpoint.id, rules, successWhen })).toMatchObject({ rules, successWhen });
  const ruled = await call('testEndpoint', { id: endpoint.id });
  expect(await call('getRun', { id: ruled.runId })).toMatchObject({ status: 'success', rulesMatched: ['queue long'] });
  expect(
    await callFailing('updateEndpoint', {
      id: endpoint.id,
      rules: [{ ...rules[0], when: { all: [{ path: 'queue', op: 'gt', value: 2 }] } }],
    }),
  ).toMatch(/must start with \$.* at rules\[0\]\.when\.all\[0\]\.path$/);
  await call('updateEndpoint', { id: endpoint.id, rules: null, successWhen: null });

  // Scheduling control.
  const before = Date.now();
  const hint = await call('applyIntervalHint', {
    id: endpoint.id,
    intervalMs: 30_000,
    ttlMinutes: 30,
    reason: 'queue is long',
  });
  expect(hint).toMatchObject({ success: true, intervalMs: 30_000, clampedIntervalMs: 30_000 });
  expect(Date.parse(hint.expiresAt)).toBeGreaterThanOrEqual(before + 30 * MINUTE_MS);
  expect(hint.endpoint.hints.interval).toMatchObject({ intervalMs: 30_000, reason: 'queue is long', origin: 'user' });
  const oneShot = await call('scheduleOneShot', {
    id: endpoint.id,
    nextRunInMs: 10 * MINUTE_MS,
    reason: 'batch lands soon',
  });
  expect(oneShot.success).toBe(true);
  expect(Date.parse(oneShot.nextRunAt)).toBeGreaterThanOrEqual(before + 10 * MINUTE_MS);
  expect(Date.parse(oneShot.nextRunAt)).toBeLessThanOrEqual(Date.now() + 10 * MINUTE_MS);
  // Default TTL: the delay plus 30 minutes.
  expect(Date.parse(oneShot.expiresAt)).toBeGreaterThanOrEqual(before + 40 * MINUTE_MS);
  expect(Date.parse(oneShot.expiresAt)).toBeLessThanOrEqual(Date.now() + 40 * MINUTE_MS);
  // The upcoming runs as the hints stand: the one-shot first, then the interval hint from it.
  const upcoming = await call('upcomingRuns', { id: endpoint.id, count: 3 });
  expect(upcoming.runs).toHaveLength(3);
  expect(upcoming.runs[0]).toEqual({ at: oneShot.nextRunAt, source: 'ai-oneshot', calendar: null });
  expect(upcoming.runs[1]).toEqual({
    at: new Date(Date.parse(oneShot.nextRunAt) + 30_000).toISOString(),
    source: 'ai-interval',
    calendar: null,
  });
  const draft = await call('upcomingRuns', { id: endpoint.id, count: 2, minIntervalMs: 60_000 });
  expect(draft.runs[1].at).toBe(new Date(Date.parse(oneShot.nextRunAt) + 60_000).toISOString());
  expect(await callFailing('upcomingRuns', { id: endpoint.id, count: 101 })).toMatch(/at most 100/);
  const cleared = await call('clearHints', { id: endpoint.id });
  expect(cleared).toMatchObject({ success: true, endpoint: { hints: { interval: null, oneShot: null } } });
  expect(await call('resetFailures', { id: endpoint.id })).toMatchObject({
    success: true,
    failureCount: 0,
    endpoint: { failureCount: 0 },
  });
  const pausedUntil = new Date(Date.now() + 60 * MINUTE_MS).toISOString();
  const paused = await call('pauseEndpoint', { id: endpoint.id, pausedUntil, reason: 'maintenance' });
  expect(paused).toMatchObject({ success: true, endpoint: { status: 'paused', pauseReason: 'maintenance' } });
  expect(Date.parse(paused.pausedUntil)).toBe(Date.parse(pausedUntil));
  expect(await call('pauseEndpoint', { id: endpoint.id, pausedUntil: null })).toMatchObject({
    success: true,
    pausedUntil: null,
    endpoint: { status: 'active' },
  });
  expect(await call('pauseJob', { id: job.id })).toMatchObject({ success: true, job: { status: 'paused' } });
  expect(await call('resumeJob', { id: job.id })).toMatchObject({ success: true, job: { status: 'active' } });

  // AI analysis.
  const sessionId = await seedAnalysisSession(env, endpoint.id);
  const sessions = await call('listAnalysisSessions', { id: endpoint.id });
  expect(sessions).toMatchObject({
    total: 1,
    hasMore: false,
    nextOffset: null,
    sessions: [{ id: sessionId, status: 'completed' }],
  });
  expect(await call('getAnalysisSession', { id: sessionId })).toMatchObject({
    id: sessionId,
    confidence: 'high',
    actionsApplied: [{ tool: 'propose_interval', applied: true }],
  });

  // Dashboard.
  const dashboard = await call('getDashboard');
  expect(dashboard.totals.jobs).toBeGreaterThanOrEqual(1);
  expect(dashboard.totals.runs).toBeGreaterThanOrEqual(1);
  expect(dashboard.ai.sessions).toBeGreaterThanOrEqual(1);

  // Archive: final.
  expect(await call('archiveEndpoint', { id: endpoint.id })).toMatchObject({
    success: true,
    endpoint: { id: endpoint.id, status: 'archived' },
  });
  expect(await callFailing('testEndpoint', { id: endpoint.id })).toMatch(/^CONFLICT: /);
  expect(await call('archiveJob', { id: job.id })).toMatchObject({ success: true, job: { status: 'archived' } });

  // Errors: the API's NOT_FOUND, and bad arguments refused before any API call.
  expect(await callFailing('getJob', { id: newId() })).toMatch(/^NOT_FOUND: job not found/);
  expect(
    await callFailing('applyIntervalHint', { id: endpoint.id, intervalMs: 'fast', ttlMinutes: 30, reason: 'x' }),
  ).toMatch(/Input validation error[\s\S]*intervalMs/);
  expect(await callFailing('createJob', { name: 'x', colour: 'blue' })).toMatch(/Input validation error/);
  return called;
}

/** The resources: the running API's llms.txt and the guides. */
export async function readEveryResource(client: Client): Promise<void> {
  const { resources } = await client.listResources();
  expect(resources.map((resource) => resource.uri).sort()).toEqual([
    'kairos://docs/llms.txt',
    'kairos://guides/getting-started',
    'kairos://guides/scheduling',
    'kairos://guides/signing',
  ]);
  const text = async (uri: string) => {
    const [content] = (await client.readResource({ uri })).contents;
    return content && 'text' in content ? content.text : '';
  };
  const llms = await text('kairos://docs/llms.txt');
  expect(llms).toContain('/api/jobs');
  expect(llms).toContain('POST /api/mcp');
  expect(await text('kairos://guides/getting-started')).toContain('addEndpoint');
  expect(await text('kairos://guides/scheduling')).toContain('applyIntervalHint');
  expect(await text('kairos://guides/scheduling')).toContain("because rule 'backlog high' matched at");
  expect(await text('kairos://guides/signing')).toContain('X-Service-Signature');
}
