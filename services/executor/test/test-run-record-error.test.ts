/**
 * "Test now" whose run PostgreSQL refuses: the caller gets the outcome and the run is
 * recorded as record_error, instead of a 503 with nothing recorded. A trigger refuses any run row
 * with a body (SQLSTATE 23514, a value the database will not take), whatever the HTTP layer does.
 */
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, type Engine } from '../../../test/engine.js';

let harness: ApiHarness;
let api: ApiClient;
let engine: Engine;
let target: TestServer;

beforeAll(async () => {
  harness = await createApiHarness();
  api = harness.client((await harness.createAccount()).apiKey);
  target = await startTestServer((_req, res) =>
    res.writeHead(201, { 'content-type': 'application/json' }).end('{"a":1}'),
  );
  await harness.db.pool.query(`
    CREATE FUNCTION refuse_bodies() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW."responseBody" IS NOT NULL THEN
        RAISE EXCEPTION 'response body refused' USING ERRCODE = '23514';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER refuse_bodies BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION refuse_bodies();`);
  engine = await startEngine(harness);
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

it('answers the test with a record_error run instead of 503', async () => {
  const job = (await api.post('/api/jobs', { name: 'test now' })).body;
  const endpoint = (
    await api.post(`/api/jobs/${job.id}/endpoints`, {
      name: 'x',
      url: `${target.origin}/x`,
      method: 'GET',
      baselineIntervalMs: 3_600_000,
    })
  ).body;
  const response = await api.post(`/api/endpoints/${endpoint.id}/test`);
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({ status: 'failed', statusCode: 201 });
  expect(response.body.errorMessage).toMatch(/could not be recorded.*response body refused/);
  const run = await harness.db.prisma.run.findUniqueOrThrow({ where: { id: response.body.runId } });
  expect(run).toMatchObject({
    source: 'test',
    status: 'failed',
    errorKind: 'record_error',
    statusCode: 201,
    responseBody: null,
  });
});
