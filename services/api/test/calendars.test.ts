/**
 * Calendars (activeFrom, activeUntil, blackouts) against the real scheduler, executor and a local
 * target: no run starts inside a blackout window, the first run after one is the first slot after it,
 * the endpoint and its upcoming runs name the window that moved the next run, a draft calendar is
 * previewed without being saved, and bad calendars are refused with a 400 naming the field.
 */
import { loadExecutionTarget, nextRunAfter } from '@kairos/db/system';
import { runOutcome } from '../../../test/runs-fixtures.js';
import { createApiHarness, type ApiClient, type ApiHarness, type ApiResponse } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';

const MINUTE_MS = 60_000;

let harness: ApiHarness;
let engine: Engine;
let api: ApiClient;
let target: TestServer;
let jobId: string;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  api = harness.client((await harness.createAccount()).apiKey);
  target = await startTestServer((_req, res) => {
    res.statusCode = 200;
    res.end('{}');
  });
  jobId = (await api.post('/api/jobs', { name: 'calendars' })).body.id;
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

const row = (id: string) => harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id } });
const iso = (ms: number) => new Date(ms).toISOString();

async function createEndpoint(
  path: string,
  fields: Record<string, unknown>,
): Promise<{ id: string; createdAt: number }> {
  const created = await api.post(`/api/jobs/${jobId}/endpoints`, {
    name: path,
    url: `${target.origin}${path}`,
    method: 'GET',
    ...fields,
  });
  expect(created.status).toBe(201);
  return { id: created.body.id as string, createdAt: Date.parse(created.body.createdAt as string) };
}

function expectRefusal(response: ApiResponse, field: string, message: RegExp) {
  expect(response.status).toBe(400);
  expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  expect(response.body.error.message).toMatch(message);
}

describe('blackout windows with the engine running', () => {
  it('every 1 s with two windows of a few seconds: no run starts inside them, the next is the first slot after', async () => {
    const { id, createdAt } = await createEndpoint('/windows', { baselineIntervalMs: 1000 });
    // Windows relative to the endpoint's slots (creation + k s): slots 3-5 and 8-9 are inside them.
    const windows = [
      { from: createdAt + 2500, to: createdAt + 5500 },
      { from: createdAt + 7500, to: createdAt + 9500 },
    ];
    const patched = await api.patch(`/api/jobs/${jobId}/endpoints/${id}`, {
      blackouts: windows.map((window) => ({ from: iso(window.from), to: iso(window.to) })),
    });
    expect(patched.status).toBe(200);
    expect(patched.body.blackouts).toHaveLength(2);

    // Inside the first window, the endpoint names it as what moved its next run to 6 s.
    await waitFor(async () => (Date.now() > createdAt + 3200 ? true : null), 10_000, 'inside the first window');
    const inside = await api.get(`/api/jobs/${jobId}/endpoints/${id}`);
    expect(inside.body.nextRunAt).toBe(iso(createdAt + 6000));
    expect(inside.body.nextRunCalendar).toEqual({
      kind: 'blackout',
      index: 0,
      from: iso(windows[0]!.from),
      to: iso(windows[0]!.to),
    });
    const upcoming = await api.get(`/api/endpoints/${id}/upcoming?count=5`);
    expect(upcoming.body.runs.map((run: { at: string }) => run.at)).toEqual(
      [6000, 7000, 10_000, 11_000, 12_000].map((offset) => iso(createdAt + offset)),
    );
    expect(upcoming.body.runs[0].calendar).toMatchObject({ kind: 'blackout', index: 0 });
    expect(upcoming.body.runs[2].calendar).toMatchObject({ kind: 'blackout', index: 1 });
    expect(upcoming.body.runs[1].calendar).toBeNull();

    const runs = await waitFor(
      async () => {
        const recorded = await harness.db.prisma.run.findMany({
          where: { endpointId: id, source: { not: 'test' } },
          orderBy: { scheduledAt: 'asc' },
        });
        return recorded.some((run) => run.scheduledAt.getTime() >= createdAt + 11_000) ? recorded : null;
      },
      20_000,
      'runs past the second window',
    );
    expect((await api.post(`/api/jobs/${jobId}/endpoints/${id}/archive`, {})).status).toBe(200);

    for (const run of runs) {
      for (const window of windows) {
        const startedAt = run.startedAt.getTime();
        expect(startedAt < window.from || startedAt >= window.to).toBe(true);
      }
    }
    const offsets = runs.map((run) => run.scheduledAt.getTime() - createdAt);
    expect(offsets).toEqual(expect.arrayContaining([0, 1000, 2000, 6000, 7000, 10_000, 11_000]));
    for (const held of [3000, 4000, 5000, 8000, 9000]) expect(offsets).not.toContain(held);
  }, 40_000);

  it('an endpoint whose active period ends stops: no run at or after activeUntil, nothing planned', async () => {
    const now = Date.now();
    const { id, createdAt } = await createEndpoint('/until', {
      baselineIntervalMs: 1000,
      activeUntil: iso(now + 2500),
    });
    const stopped = await waitFor(
      async () => {
        const found = await row(id);
        return found.lastScheduledAt && found.nextRunAt === null && !found.scheduleDirtyAt ? found : null;
      },
      10_000,
      'the end of the active period',
    );
    const runs = await harness.db.prisma.run.findMany({ where: { endpointId: id } });
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) expect(run.startedAt.getTime()).toBeLessThan(now + 2500);
    expect(stopped.lastScheduledAt!.getTime()).toBeGreaterThanOrEqual(createdAt + 1000);
    expect((await api.get(`/api/endpoints/${id}/upcoming`)).body.runs).toEqual([]);
  }, 20_000);
});

describe('the next run and the upcoming runs name the window', () => {
  it('a window open now holds the first run until the first slot after it', async () => {
    const now = Date.now();
    const { id, createdAt } = await createEndpoint('/held', {
      baselineIntervalMs: MINUTE_MS,
      blackouts: [
        { cron: '0 0 1 1 *', durationMs: 1000 },
        { from: iso(now - 1000), to: iso(now + 150_000) },
      ],
    });
    const planned = await waitFor(
      async () => {
        const found = await row(id);
        return found.nextRunAt && !found.scheduleDirtyAt ? found : null;
      },
      8000,
      'the first run planned',
    );
    // Creation + 3 min: the first slot at or after the window's end (now + 2.5 min).
    expect(planned.nextRunAt!.getTime()).toBe(createdAt + 3 * MINUTE_MS);
    const record = (await api.get(`/api/jobs/${jobId}/endpoints/${id}`)).body;
    expect(record.nextRunCalendar).toEqual({
      kind: 'blackout',
      index: 1,
      from: iso(now - 1000),
      to: iso(now + 150_000),
    });
    const upcoming = (await api.get(`/api/endpoints/${id}/upcoming?count=2`)).body.runs;
    expect(upcoming[0]).toMatchObject({ at: iso(createdAt + 3 * MINUTE_MS), source: 'baseline-interval' });
    expect(upcoming[0].calendar).toMatchObject({ kind: 'blackout', index: 1 });

    // The executor's planning of the run after a success reads the same calendar: a run at creation
    // would be followed by the first slot after the window, as the scheduler and upcoming say.
    const target = (await loadExecutionTarget(harness.db, id))!;
    const ran = { ...runOutcome({ accountId: target.accountId, endpointId: id }, new Date(createdAt)) };
    const afterFirst = nextRunAfter(target, ran, target.scheduleVersion, new Date(createdAt + 10))!;
    expect(afterFirst.scheduledAt.getTime()).toBe(createdAt + 3 * MINUTE_MS);

    // A draft without the window and with an activeUntil: previewed, not saved.
    const before = await row(id);
    const draft = await api.post(`/api/endpoints/${id}/upcoming?count=10`, {
      blackouts: null,
      activeUntil: iso(createdAt + 2 * MINUTE_MS + 1),
    });
    expect(draft.status).toBe(200);
    expect(draft.body.runs.map((run: { at: string }) => run.at)).toEqual([
      iso(createdAt),
      iso(createdAt + MINUTE_MS),
      iso(createdAt + 2 * MINUTE_MS),
    ]);
    expect((await row(id)).scheduleVersion).toBe(before.scheduleVersion);
  });
});

describe('bad calendars are refused', () => {
  it('names the field: activeUntil before activeFrom, a bad window cron, a window that never closes, too many', async () => {
    const base = { name: 'bad', url: `${target.origin}/bad`, method: 'GET', baselineIntervalMs: MINUTE_MS };
    const create = (fields: Record<string, unknown>) =>
      api.post(`/api/jobs/${jobId}/endpoints`, { ...base, ...fields });
    expectRefusal(
      await create({ activeFrom: '2030-01-02T00:00:00Z', activeUntil: '2030-01-01T00:00:00Z' }),
      'activeUntil',
      /after activeFrom/,
    );
    expectRefusal(await create({ activeFrom: 'tomorrow' }), 'activeFrom', /./);
    expectRefusal(await create({ blackouts: [{ cron: 'not a cron', durationMs: 1000 }] }), 'blackouts[0].cron', /cron/);
    expectRefusal(
      await create({ blackouts: [{ cron: '0 * * * *', durationMs: 3_600_000 }] }),
      'blackouts[0].durationMs',
      /shortest gap/,
    );
    expectRefusal(
      await create({ blackouts: [{ cron: '0 * * * *', durationMs: 10 }] }),
      'blackouts[0].durationMs',
      /at least 1000/,
    );
    expectRefusal(
      await create({ blackouts: [{ from: '2030-01-02T00:00:00Z', to: '2030-01-01T00:00:00Z' }] }),
      'blackouts[0].to',
      /after its from/,
    );
    expectRefusal(await create({ blackouts: [{ at: 'noon' }] }), 'blackouts[0]', /./);
    const many = Array.from({ length: 51 }, () => ({ cron: '0 1 * * *', durationMs: 60_000 }));
    expectRefusal(await create({ blackouts: many }), 'blackouts', /at most 50/);

    const { id } = await createEndpoint('/draft-bad', { baselineIntervalMs: MINUTE_MS });
    expectRefusal(
      await api.post(`/api/endpoints/${id}/upcoming`, {
        activeFrom: '2030-01-02T00:00:00Z',
        activeUntil: '2029-01-01T00:00:00Z',
      }),
      'activeUntil',
      /after activeFrom/,
    );
    // A PATCH is checked against the endpoint it produces.
    expect(
      (await api.patch(`/api/jobs/${jobId}/endpoints/${id}`, { activeUntil: '2030-01-01T00:00:00Z' })).status,
    ).toBe(200);
    expectRefusal(
      await api.patch(`/api/jobs/${jobId}/endpoints/${id}`, { activeFrom: '2030-06-01T00:00:00Z' }),
      'activeUntil',
      /after activeFrom/,
    );
  });
});
