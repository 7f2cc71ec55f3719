/**
 * Run now and replay against the real scheduler and executor: the run reaches a local target with its
 * header and body overrides, is recorded with source manual and counts as a failure when the target
 * fails (a test run does not); a replay repeats the same request as a new run linked by replayOf; bad
 * input is a 400 naming the field, another account's endpoint or run a 404, an archived endpoint a 409.
 */
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';

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
  // /fail answers 500, /slow after 1.5 s; everything else 200 at once.
  target = await startTestServer((req, res) => {
    res.statusCode = req.url?.startsWith('/fail') ? 500 : 200;
    res.setHeader('content-type', 'application/json');
    if (req.url?.startsWith('/slow')) setTimeout(() => res.end('{"ok":true}'), 1500);
    else res.end('{"ok":true}');
  });
  jobId = (await api.post('/api/jobs', { name: 'manual runs' })).body.id;
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

/** An endpoint whose baseline never runs during the test (once a year), so every run is asked for. */
async function createEndpoint(path: string, fields: Record<string, unknown> = {}): Promise<string> {
  const created = await api.post(`/api/jobs/${jobId}/endpoints`, {
    name: path,
    url: `${target.origin}${path}`,
    method: 'POST',
    baselineCron: '0 0 1 1 *',
    headers: { 'X-Base': 'endpoint', 'X-Keep': 'kept' },
    body: { from: 'endpoint' },
    ...fields,
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const recorded = (runId: string) =>
  waitFor(
    async () => {
      const response = await api.get(`/api/runs/${runId}`);
      return response.status === 200 ? response.body : null;
    },
    10_000,
    `run ${runId}`,
  );

const requestsTo = (path: string) => target.requests.filter((request) => request.url === path);

describe('POST /api/endpoints/:id/run', () => {
  it('runs now with the overrides for this run only, recorded with source manual', async () => {
    const id = await createEndpoint('/overrides');
    const queued = await api.post(`/api/endpoints/${id}/run`, {
      headers: { 'x-base': 'override', 'X-Extra': 'extra' },
      body: { from: 'override' },
    });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ endpointId: id, source: 'manual', replayOf: null });
    const run = await recorded(queued.body.runId);
    expect(run).toMatchObject({ source: 'manual', status: 'success', statusCode: 200, replayOf: null });

    const [request] = requestsTo('/overrides');
    expect(request!.headers['x-service-run-id']).toBe(queued.body.runId);
    expect(request!.headers['x-base']).toBe('override');
    expect(request!.headers['x-extra']).toBe('extra');
    expect(request!.headers['x-keep']).toBe('kept');
    expect(JSON.parse(request!.body)).toEqual({ from: 'override' });

    // The endpoint keeps its own request.
    const endpoint = (await api.get(`/api/endpoints/${id}`)).body;
    expect(endpoint.body ?? endpoint.bodyJson).toEqual({ from: 'endpoint' });
    const plain = await api.post(`/api/endpoints/${id}/run`, {});
    expect(plain.status).toBe(202);
    await recorded(plain.body.runId);
    const second = requestsTo('/overrides')[1]!;
    expect(second.headers['x-base']).toBe('endpoint');
    expect(second.headers['x-extra']).toBeUndefined();
    expect(JSON.parse(second.body)).toEqual({ from: 'endpoint' });
  });

  it('counts a failure of the target for failureCount and lastRunAt, as a scheduled run does', async () => {
    const id = await createEndpoint('/fail');
    // A test run of the same failing target changes nothing.
    const tested = await api.post(`/api/endpoints/${id}/test`);
    expect(tested.body.status).toBe('failed');
    expect((await api.get(`/api/endpoints/${id}`)).body.failureCount).toBe(0);

    const queued = await api.post(`/api/endpoints/${id}/run`);
    expect(queued.status).toBe(202);
    const run = await recorded(queued.body.runId);
    expect(run).toMatchObject({ source: 'manual', status: 'failed', statusCode: 500 });
    const endpoint = await waitFor(
      async () => {
        const found = (await api.get(`/api/endpoints/${id}`)).body;
        return found.failureCount === 1 ? found : null;
      },
      5000,
      'the failure counted',
    );
    expect(endpoint.lastRunAt).toBe(run.startedAt);
    // The scheduler planned the next run after it (the yearly slot, backed off or not: in the future).
    expect(new Date(endpoint.nextRunAt).getTime()).toBeGreaterThan(Date.now());
  });

  it('does not run while another run of the endpoint is in progress, as an overlapping slot', async () => {
    const id = await createEndpoint('/slow');
    const first = await api.post(`/api/endpoints/${id}/run`, {});
    await waitFor(async () => requestsTo('/slow').length === 1, 5000, 'the first call to arrive');
    const second = await api.post(`/api/endpoints/${id}/run`, {});
    expect(second.status).toBe(202);
    await recorded(first.body.runId);
    // The second was dropped when it found the first running: no run under its id, one call only.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await api.get(`/api/runs/${second.body.runId}`)).status).toBe(404);
    expect(requestsTo('/slow')).toHaveLength(1);
    // Once it is over, a run now runs.
    const third = await api.post(`/api/endpoints/${id}/run`, {});
    await recorded(third.body.runId);
    expect(requestsTo('/slow')).toHaveLength(2);
  });

  it('refuses bad overrides with a 400 naming the field', async () => {
    const id = await createEndpoint('/refused');
    const getter = await createEndpoint('/getter', { method: 'GET', body: null });
    const cases: [string, unknown, RegExp][] = [
      [id, { headers: { 'bad header': 'x' } }, /^headers/],
      [id, { headers: { 'X-Service-Run-Id': 'mine' } }, /^headers/],
      [id, { headers: { 'X-Ok': 3 } }, /^headers/],
      [id, { body: 42 }, /^body/],
      [id, { other: true }, /.*/],
      [getter, { body: { not: 'allowed' } }, /^body$/],
    ];
    for (const [endpointId, input, field] of cases) {
      const response = await api.post(`/api/endpoints/${endpointId}/run`, input);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(String(response.body.error.details?.field ?? '')).toMatch(field);
    }
    expect(requestsTo('/refused')).toHaveLength(0);
  });

  it("answers 404 for another account's endpoint and 409 for an archived one", async () => {
    const id = await createEndpoint('/archived');
    expect((await stranger.post(`/api/endpoints/${id}/run`, {})).status).toBe(404);
    expect((await api.post(`/api/jobs/${jobId}/endpoints/${id}/archive`)).status).toBe(200);
    const refused = await api.post(`/api/endpoints/${id}/run`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CONFLICT');
  });
});

describe('POST /api/runs/:id/replay', () => {
  it('runs the same request again as a new run linked by replayOf', async () => {
    const id = await createEndpoint('/replayed');
    const first = await api.post(`/api/endpoints/${id}/run`, {
      headers: { 'X-Base': 'first' },
      body: { from: 'first' },
    });
    const original = await recorded(first.body.runId);

    const replay = await api.post(`/api/runs/${original.id}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ endpointId: id, source: 'manual', replayOf: original.id });
    expect(replay.body.runId).not.toBe(original.id);
    const run = await recorded(replay.body.runId);
    expect(run).toMatchObject({ source: 'manual', replayOf: original.id, status: 'success' });

    const [asked, replayed] = requestsTo('/replayed');
    expect(replayed!.headers['x-service-run-id']).toBe(replay.body.runId);
    expect(replayed!.headers['x-base']).toBe(asked!.headers['x-base']);
    expect(replayed!.body).toBe(asked!.body);
    expect(JSON.parse(replayed!.body)).toEqual({ from: 'first' });

    expect((await stranger.post(`/api/runs/${original.id}/replay`)).status).toBe(404);
  });
});
