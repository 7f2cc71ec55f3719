/**
 * A target answering U+0000 (escaped in JSON or as a raw 0x00 byte), a lone surrogate
 * escape or invalid UTF-8 is recorded, with U+FFFD in place of each and responseBodyAltered true.
 * On main such a body failed the recording batch: "Test now" answered 503, and a scheduled run was
 * never recorded while its delivery was retried (a new HTTP call each time).
 */
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';

const BODIES: Record<string, { contentType: string; bytes: Buffer }> = {
  '/nul-json': { contentType: 'application/json', bytes: Buffer.from('{"note":"a\\u0000b","k\\u0000":1}') },
  '/surrogate-json': { contentType: 'application/json', bytes: Buffer.from('{"s":"\\ud800x"}') },
  '/binary': { contentType: 'application/octet-stream', bytes: Buffer.from([0x50, 0x4b, 0x00, 0x03, 0x04]) },
  '/invalid-utf8': { contentType: 'text/plain', bytes: Buffer.from([0x6f, 0x6b, 0xff, 0xc0]) },
  '/clean': { contentType: 'application/json', bytes: Buffer.from('{"fine":true}') },
};

let harness: ApiHarness;
let engine: Engine;
let target: TestServer;
let api: ApiClient;
let jobId: string;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  target = await startTestServer((req, res) => {
    const body = BODIES[req.url ?? ''] ?? BODIES['/clean']!;
    res.setHeader('content-type', body.contentType);
    res.end(body.bytes);
  });
  api = harness.client((await harness.createAccount({ tier: 'enterprise' })).apiKey);
  jobId = (await api.post('/api/jobs', { name: 'storable' })).body.id;
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

const createEndpoint = async (path: string, baselineIntervalMs = 3_600_000) =>
  (
    await api.post(`/api/jobs/${jobId}/endpoints`, {
      name: path,
      url: `${target.origin}${path}`,
      method: 'GET',
      baselineIntervalMs,
    })
  ).body as { id: string };

describe('Test now', () => {
  it.each<[string, unknown, string, boolean]>([
    ['/nul-json', { note: 'a\uFFFDb', 'k\uFFFD': 1 }, 'json', true],
    ['/surrogate-json', { s: '\uFFFDx' }, 'json', true],
    ['/binary', 'PK\uFFFD\u0003\u0004', 'text', true],
    ['/invalid-utf8', 'ok\uFFFD\uFFFD', 'text', true],
    ['/clean', { fine: true }, 'json', false],
  ])('records %s once, made storable', async (path, storedBody, format, isAltered) => {
    const endpoint = await createEndpoint(path);
    const response = await api.post(`/api/endpoints/${endpoint.id}/test`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'success', statusCode: 200, responseBody: storedBody });
    const run = (await api.get(`/api/runs/${response.body.runId}`)).body;
    expect(run).toMatchObject({ responseBody: storedBody, responseFormat: format, responseBodyAltered: isAltered });
  });
});

describe('scheduled runs', () => {
  it('records every run of a target answering NUL, one HTTP call per run (no retried deliveries)', async () => {
    const before = target.requests.length;
    const endpoint = await createEndpoint('/nul-json', 1000);
    const runs = () =>
      harness.db.prisma.run.findMany({ where: { endpointId: endpoint.id }, orderBy: { startedAt: 'asc' } });
    await waitFor(async () => (await runs()).length >= 2, 8000, 'two recorded runs');
    await api.post(`/api/jobs/${jobId}/pause`);
    await new Promise((resolve) => setTimeout(resolve, 300)); // let an execution in flight finish
    const recorded = await runs();
    expect(recorded.every((run) => run.status === 'success' && run.responseBodyAltered)).toBe(true);
    expect(recorded[0]!.responseBody).toEqual({ note: 'a\uFFFDb', 'k\uFFFD': 1 });
    const calls = target.requests.slice(before).filter((request) => request.url === '/nul-json');
    expect(calls.length).toBe(recorded.length);
  });
});
