/**
 * GET and POST /api/endpoints/{id}/upcoming against the real scheduler and executor: the upcoming
 * times are the times the runs then happen at (an interval baseline, an interval hint), the draft
 * preview changes nothing, and bad input is a 400 in the API's error shape.
 */
import { DISPATCH_LEAD_MS } from '@kairos/core';
import { createApiHarness, type ApiClient, type ApiHarness, type ApiResponse } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';

const HOUR_MS = 3_600_000;

let harness: ApiHarness;
let engine: Engine;
let api: ApiClient;
let stranger: ApiClient;
let target: TestServer;
let jobId: string;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  api = harness.client((await harness.createAccount()).apiKey);
  stranger = harness.client((await harness.createAccount()).apiKey);
  target = await startTestServer((_req, res) => {
    res.statusCode = 200;
    res.end('{}');
  });
  jobId = (await api.post('/api/jobs', { name: 'upcoming' })).body.id;
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

const row = (id: string) => harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id } });

async function createEndpoint(path: string, fields: Record<string, unknown>): Promise<string> {
  const created = await api.post(`/api/jobs/${jobId}/endpoints`, {
    name: path,
    url: `${target.origin}${path}`,
    method: 'GET',
    ...fields,
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

/** Waits until the endpoint's first run is recorded and its next one planned. */
async function settle(id: string): Promise<Date> {
  const settled = await waitFor(
    async () => {
      const found = await row(id);
      return found.lastScheduledAt && found.nextRunAt! > found.lastScheduledAt && !found.scheduleDirtyAt ? found : null;
    },
    8000,
    'the first run',
  );
  return settled.lastScheduledAt!;
}

/** The scheduled runs recorded after `after`, soonest first, once there are `count`. */
async function runsAfter(id: string, after: Date, count: number) {
  return waitFor(
    async () => {
      const runs = await harness.db.prisma.run.findMany({
        where: { endpointId: id, scheduledAt: { gt: after }, source: { not: 'test' } },
        orderBy: { scheduledAt: 'asc' },
        take: count,
      });
      return runs.length === count ? runs : null;
    },
    15_000,
    `${count} runs`,
  );
}

/** Archives the endpoint (it stops): it has no upcoming runs then. */
async function archive(id: string) {
  expect((await api.post(`/api/jobs/${jobId}/endpoints/${id}/archive`, {})).status).toBe(200);
  expect((await api.get(`/api/endpoints/${id}/upcoming`)).body.runs).toEqual([]);
}

function expectRefusal(response: ApiResponse, field: string, message: RegExp) {
  expect(response.status).toBe(400);
  expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  expect(response.body.error.message).toMatch(message);
}

/** Each recorded run's planned time is the upcoming time, within the dispatch lead. */
function expectSameTimes(upcoming: { at: string; source: string }[], runs: { scheduledAt: Date; source: string }[]) {
  expect(runs.map((run) => run.source)).toEqual(upcoming.map((run) => run.source));
  runs.forEach((run, index) => {
    expect(Math.abs(run.scheduledAt.getTime() - new Date(upcoming[index]!.at).getTime())).toBeLessThanOrEqual(
      DISPATCH_LEAD_MS,
    );
  });
}

describe('GET /api/endpoints/:id/upcoming', () => {
  it('an interval endpoint: the next 3 upcoming times are the times its next 3 runs are planned at', async () => {
    const id = await createEndpoint('/interval', { baselineIntervalMs: 1000 });
    const first = await settle(id);
    const response = await api.get(`/api/endpoints/${id}/upcoming?count=3`);
    expect(response.status).toBe(200);
    expect(response.body.jitterMs).toBe(0);
    const upcoming = response.body.runs as { at: string; source: string }[];
    expect(upcoming).toHaveLength(3);
    expect(upcoming.every((run) => run.source === 'baseline-interval')).toBe(true);
    const runs = await runsAfter(id, new Date(Math.max(first.getTime(), Date.parse(upcoming[0]!.at) - 1)), 3);
    expectSameTimes(upcoming, runs);
    await archive(id);
  });

  it('with an active interval hint: the hint’s times and source, then the runs at them', async () => {
    const id = await createEndpoint('/hinted', { baselineIntervalMs: HOUR_MS });
    await settle(id);
    const hinted = await api.post(`/api/endpoints/${id}/hints/interval`, {
      intervalMs: 1000,
      ttlMinutes: 5,
      reason: 'watch closely',
    });
    expect(hinted.status).toBe(200);
    await waitFor(async () => (await row(id)).nextRunSource === 'ai-interval' || null, 8000, 'the hint planned');
    const response = await api.get(`/api/endpoints/${id}/upcoming?count=3`);
    const upcoming = response.body.runs as { at: string; source: string }[];
    expect(upcoming.map((run) => run.source)).toEqual(['ai-interval', 'ai-interval', 'ai-interval']);
    expect(Date.parse(upcoming[2]!.at) - Date.parse(upcoming[1]!.at)).toBe(1000);
    const runs = await runsAfter(id, new Date(Date.parse(upcoming[0]!.at) - 1), 3);
    expectSameTimes(upcoming, runs);
    await archive(id);
  });

  it('answers 10 by default, refuses a bad count, and hides another account’s endpoint', async () => {
    const id = await createEndpoint('/quiet', { baselineIntervalMs: HOUR_MS });
    const response = await api.get(`/api/endpoints/${id}/upcoming`);
    expect(response.status).toBe(200);
    expect(response.body.runs).toHaveLength(10);
    expect((await api.get(`/api/endpoints/${id}/upcoming?count=100`)).body.runs).toHaveLength(100);
    expectRefusal(await api.get(`/api/endpoints/${id}/upcoming?count=101`), 'count', /at most 100/);
    expectRefusal(await api.get(`/api/endpoints/${id}/upcoming?count=0`), 'count', /at least 1/);
    expectRefusal(await api.get(`/api/endpoints/${id}/upcoming?count=two`), 'count', /./);
    const hidden = await stranger.get(`/api/endpoints/${id}/upcoming`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('NOT_FOUND');
    expect((await stranger.post(`/api/endpoints/${id}/upcoming`, {})).status).toBe(404);
  });
});

describe('POST /api/endpoints/:id/upcoming', () => {
  it('answers the runs a draft cron would plan, 09:00 in its time zone, changing nothing', async () => {
    const id = await createEndpoint('/draft', { baselineIntervalMs: HOUR_MS });
    await settle(id);
    const before = await row(id);
    const response = await api.post(`/api/endpoints/${id}/upcoming?count=5`, {
      baselineCron: '0 9 * * *',
      timezone: 'America/New_York',
    });
    expect(response.status).toBe(200);
    const runs = response.body.runs as { at: string; source: string }[];
    expect(runs).toHaveLength(5);
    for (const run of runs) {
      expect(run.source).toBe('baseline-cron');
      const local = new Intl.DateTimeFormat('en-US', {
        timeZone: 'America/New_York',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(run.at));
      expect(local).toBe('09:00');
    }
    const after = await row(id);
    expect(after).toMatchObject({
      baselineCron: null,
      baselineIntervalMs: HOUR_MS,
      timezone: 'UTC',
      scheduleVersion: before.scheduleVersion,
    });
  });

  it('an interval draft: runs spaced by the draft interval', async () => {
    const id = await createEndpoint('/draft-interval', { baselineIntervalMs: HOUR_MS });
    await settle(id);
    const response = await api.post(`/api/endpoints/${id}/upcoming?count=3`, { baselineIntervalMs: 120_000 });
    expect(response.status).toBe(200);
    const times = (response.body.runs as { at: string }[]).map((run) => Date.parse(run.at));
    expect(times[1]! - times[0]!).toBe(120_000);
    expect(times[2]! - times[1]!).toBe(120_000);
  });

  it('refuses a draft a PATCH would refuse, naming the field', async () => {
    const id = await createEndpoint('/draft-bad', { baselineIntervalMs: HOUR_MS });
    expectRefusal(await api.post(`/api/endpoints/${id}/upcoming`, { baselineCron: 'not a cron' }), 'baselineCron', /./);
    expectRefusal(await api.post(`/api/endpoints/${id}/upcoming`, { timezone: 'Mars/Olympus' }), 'timezone', /./);
    expectRefusal(await api.post(`/api/endpoints/${id}/upcoming`, { url: 'https://example.com' }), 'url', /unknown/);
  });
});
