/**
 * Jitter (opt-in per endpoint) through the API and the real engine: every run of an
 * endpoint with jitterMs lands within [planned, planned + jitterMs], where the planned times stay on
 * the interval grid from creation (jitter does not accumulate), and the run's scheduledAt is the
 * jittered time given by its run id.
 */
import { JITTER_MAX_MS, jitterOffsetMs } from '@kairos/core';
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';

let harness: ApiHarness;
let engine: Engine;
let api: ApiClient;
let target: TestServer;
let jobId: string;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  api = harness.client((await harness.createAccount()).apiKey);
  target = await startTestServer((_req, res) => res.writeHead(204).end());
  jobId = (await api.post('/api/jobs', { name: 'Jitter' })).body.id;
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

const createEndpoint = (path: string, overrides: Record<string, unknown>) =>
  api.post(`/api/jobs/${jobId}/endpoints`, {
    name: path,
    url: `${target.origin}${path}`,
    method: 'GET',
    baselineIntervalMs: 2000,
    ...overrides,
  });

describe('jitter', () => {
  it('moves each run by its run id’s offset within [planned, planned + jitterMs], on the planned grid', async () => {
    const jitterMs = 1000;
    const created = await createEndpoint('/jittered', { jitterMs });
    expect(created.status).toBe(201);
    expect(created.body.jitterMs).toBe(jitterMs);
    const endpointId = created.body.id as string;
    const runs = await waitFor(
      async () => {
        const found = await harness.db.prisma.run.findMany({ where: { endpointId }, orderBy: { scheduledAt: 'asc' } });
        return found.length >= 4 ? found : null;
      },
      15_000,
      'four runs',
    );
    const { createdAt } = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
    const offsets = runs.map((run, k) => {
      const planned = createdAt.getTime() + k * 2000;
      const offset = run.scheduledAt.getTime() - planned;
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThanOrEqual(jitterMs);
      // scheduledAt is the jittered time: the offset is the one the run id gives.
      expect(offset).toBe(jitterOffsetMs(run.id, jitterMs));
      expect(run.startedAt.getTime()).toBeGreaterThanOrEqual(run.scheduledAt.getTime());
      expect(run).toMatchObject({ status: 'success', source: 'baseline-interval' });
      return offset;
    });
    // Four offsets in [0, 1000] all zero: the jitter was not applied (chance 1e-12).
    expect(offsets.some((offset) => offset > 0)).toBe(true);
    // The receiver saw each run once, by its run id, at or after its jittered time.
    const requests = target.requests.filter((request) => request.url === '/jittered');
    expect(requests.map((request) => request.headers['x-service-run-id']).slice(0, 4)).toEqual(runs.map((r) => r.id));
  }, 30_000);

  it('stores the planned run’s jittered time in the row (what a reconcile re-add or a retried delivery uses)', async () => {
    const created = await createEndpoint('/jittered-row', { jitterMs: 1000, baselineIntervalMs: 3_600_000 });
    const endpointId = created.body.id as string;
    const row = await waitFor(
      async () => {
        const found = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
        return found.lastScheduledAt && found.nextRunId && found.nextRunAt! > found.lastScheduledAt ? found : null;
      },
      10_000,
      'the second planned run',
    );
    const [first] = await harness.db.prisma.run.findMany({ where: { endpointId } });
    const plannedSecond = row.createdAt.getTime() + 3_600_000;
    expect(row.nextRunAt!.getTime()).toBe(plannedSecond + jitterOffsetMs(row.nextRunId!, 1000));
    expect(first!.scheduledAt.getTime()).toBe(row.createdAt.getTime() + jitterOffsetMs(first!.id, 1000));
  }, 20_000);

  it('defaults to 0 (exact planned times) and refuses out-of-range values with 400', async () => {
    const plain = await createEndpoint('/plain', {});
    expect(plain.body.jitterMs).toBe(0);
    for (const [overrides, message] of [
      [{ jitterMs: 1001 }, 'at most half of baselineIntervalMs'],
      [{ jitterMs: -1 }, 'must be 0 or more'],
      [{ jitterMs: 1.5 }, 'whole number'],
      [{ baselineIntervalMs: null, baselineCron: '0 * * * *', jitterMs: JITTER_MAX_MS + 1 }, 'at most 3600000'],
      // An hourly cron takes at most half an hour, like an interval.
      [{ baselineIntervalMs: null, baselineCron: '0 * * * *', jitterMs: JITTER_MAX_MS }, 'shortest gap'],
    ] as const) {
      const response = await createEndpoint('/refused', overrides);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(response.body.error.details)).toContain(message);
    }
    const cron = await createEndpoint('/cron', {
      baselineIntervalMs: null,
      baselineCron: '0 * * * *',
      jitterMs: JITTER_MAX_MS / 2,
    });
    expect(cron.status).toBe(201);
    const patched = await api.patch(`/api/jobs/${jobId}/endpoints/${plain.body.id}`, { jitterMs: 500 });
    expect(patched.status).toBe(200);
    expect(patched.body.jitterMs).toBe(500);
  });
});
