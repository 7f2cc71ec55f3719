/**
 * POST /api/endpoints/{id}/backfill against the real scheduler and executor: one run per baseline slot
 * in the range, recorded with source backfill and the slot's time as scheduledAt, leaving the
 * endpoint's schedule alone; a second identical backfill queues none and runs none; bad ranges are a
 * 400 naming the field.
 */
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
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
  jobId = (await api.post('/api/jobs', { name: 'backfill' })).body.id;
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

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

const backfillRuns = (endpointId: string) =>
  harness.db.prisma.run.findMany({ where: { endpointId, source: 'backfill' }, orderBy: { scheduledAt: 'asc' } });

/** A whole hour a few hours ago: [from, from + 1 h]. */
const pastHour = () => {
  const from = new Date(Math.floor((Date.now() - 3 * HOUR_MS) / HOUR_MS) * HOUR_MS);
  return { from: from.toISOString(), to: new Date(from.getTime() + HOUR_MS).toISOString(), fromMs: from.getTime() };
};

describe('POST /api/endpoints/:id/backfill', () => {
  it('runs each baseline slot of the range once, with the slot as scheduledAt, and never twice', async () => {
    const id = await createEndpoint('/cron', { baselineCron: '*/10 * * * *' });
    const before = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id } });
    const { from, to, fromMs } = pastHour();
    const slots = Array.from({ length: 7 }, (_, index) => fromMs + index * 10 * 60_000);

    const first = await api.post(`/api/endpoints/${id}/backfill`, { from, to });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ slots: 7, queued: 7 });
    // Asked again while queued: the slots' jobs are found.
    expect((await api.post(`/api/endpoints/${id}/backfill`, { from, to })).body).toEqual({ slots: 7, queued: 0 });

    const runs = await waitFor(
      async () => {
        const found = await backfillRuns(id);
        return found.length >= 7 ? found : null;
      },
      30_000,
      'the backfilled slots',
    );
    expect(runs.map((run) => run.scheduledAt.getTime())).toEqual(slots);
    expect(runs.every((run) => run.status === 'success')).toBe(true);
    // The calls of the backfilled runs (a scheduled run of the endpoint may fall in the test's minutes).
    const backfillCalls = () =>
      target.requests.filter((request) => runs.some((run) => run.id === request.headers['x-service-run-id']));
    expect(backfillCalls()).toHaveLength(7);

    // The schedule is left alone: no past slot became the endpoint's latest run.
    const after = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id } });
    expect(after.lastScheduledAt).toEqual(before.lastScheduledAt);
    expect(after.failureCount).toBe(0);

    // Asked again once they ran: nothing queued, nothing run.
    const again = await api.post(`/api/endpoints/${id}/backfill`, { from, to });
    expect(again.body).toEqual({ slots: 7, queued: 0 });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await backfillRuns(id)).toHaveLength(7);
    expect(backfillCalls()).toHaveLength(7);

    // A wider range queues only the slots it adds.
    const wider = await api.post(`/api/endpoints/${id}/backfill`, {
      from,
      to: new Date(fromMs + HOUR_MS + 20 * 60_000).toISOString(),
    });
    expect(wider.body).toEqual({ slots: 9, queued: 2 });
  });

  it("extends an interval's slots backwards from its anchor", async () => {
    const id = await createEndpoint('/interval', { baselineIntervalMs: 15 * 60_000 });
    const { from, to } = pastHour();
    const answer = await api.post(`/api/endpoints/${id}/backfill`, { from, to });
    expect(answer.status).toBe(202);
    // Four or five slots a quarter of an hour apart fall in one hour (both ends included), by the anchor.
    expect([4, 5]).toContain(answer.body.slots);
    const runs = await waitFor(
      async () => {
        const found = await backfillRuns(id);
        return found.length === answer.body.slots ? found : null;
      },
      30_000,
      'the backfilled interval slots',
    );
    const anchor = (await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id } })).createdAt.getTime();
    for (const run of runs) expect((anchor - run.scheduledAt.getTime()) % (15 * 60_000)).toBe(0);
  });

  it('refuses bad ranges with a 400 naming the field', async () => {
    const id = await createEndpoint('/refused', { baselineIntervalMs: 60_000 });
    const now = Date.now();
    const iso = (offsetMs: number) => new Date(now + offsetMs).toISOString();
    const cases: [Record<string, unknown>, string][] = [
      [{ from: iso(-HOUR_MS), to: iso(HOUR_MS) }, 'to'],
      [{ from: iso(-HOUR_MS), to: iso(-2 * HOUR_MS) }, 'from'],
      [{ from: 'yesterday', to: iso(-HOUR_MS) }, 'from'],
      [{ from: iso(-HOUR_MS) }, 'to'],
      // 1,441 one-minute slots in a day: more than 1,000.
      [{ from: iso(-25 * HOUR_MS), to: iso(-HOUR_MS) }, 'from'],
    ];
    for (const [input, field] of cases) {
      const response = await api.post(`/api/endpoints/${id}/backfill`, input);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    }
    expect(await backfillRuns(id)).toHaveLength(0);
    expect((await stranger.post(`/api/endpoints/${id}/backfill`, { from: iso(-HOUR_MS), to: iso(-1000) })).status).toBe(
      404,
    );
  });
});
