import { createApiHarness, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
let apiKey: string;

beforeAll(async () => {
  harness = await createApiHarness();
  apiKey = (await harness.createAccount()).apiKey;
});
afterAll(() => harness.close());

const expectErrorShape = (body: unknown, code: string) => {
  expect(body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
};

describe('error shape', () => {
  it('401 without an API key, and with a wrong one', async () => {
    const missing = await harness.http.get('/api/jobs');
    expect(missing.status).toBe(401);
    expectErrorShape(missing.body, 'UNAUTHORIZED');
    const wrong = await harness.http.get('/api/jobs').set('x-api-key', 'kairos_not-a-real-key');
    expect(wrong.status).toBe(401);
    expectErrorShape(wrong.body, 'UNAUTHORIZED');
  });

  it('401 once a key is revoked', async () => {
    const account = await harness.createAccount();
    expect((await harness.http.get('/api/jobs').set('x-api-key', account.apiKey)).status).toBe(200);
    await harness.db.prisma.apiKey.update({ where: { id: account.apiKeyId }, data: { revokedAt: new Date() } });
    // A fresh process (no cache) sees the revocation at once.
    const fresh = await createApiHarnessClone();
    expect((await fresh.get('/api/jobs').set('x-api-key', account.apiKey)).status).toBe(401);
  });

  it('400 for malformed JSON', async () => {
    const response = await harness.http
      .post('/api/jobs')
      .set('x-api-key', apiKey)
      .set('content-type', 'application/json')
      .send('{"name": ');
    expect(response.status).toBe(400);
    expectErrorShape(response.body, 'VALIDATION_ERROR');
    expect(response.headers['content-type']).toMatch(/application\/json/);
  });

  it('400 when the body is not JSON at all', async () => {
    const response = await harness.http
      .post('/api/jobs')
      .set('x-api-key', apiKey)
      .set('content-type', 'text/plain')
      .send('name=x');
    expect(response.status).toBe(400);
    expectErrorShape(response.body, 'VALIDATION_ERROR');
  });

  it('400 when the body is a JSON array or scalar', async () => {
    for (const payload of ['[1,2]', '"text"', 'null']) {
      const response = await harness.http
        .post('/api/jobs')
        .set('x-api-key', apiKey)
        .set('content-type', 'application/json')
        .send(payload);
      expect(response.status).toBe(400);
      expectErrorShape(response.body, 'VALIDATION_ERROR');
    }
  });

  it('413 for an oversized body, in the error shape', async () => {
    const response = await harness.http
      .post('/api/jobs')
      .set('x-api-key', apiKey)
      .set('content-type', 'application/json')
      .send(JSON.stringify({ name: 'x', description: 'y'.repeat(300 * 1024) }));
    expect(response.status).toBe(413);
    expectErrorShape(response.body, 'PAYLOAD_TOO_LARGE');
  });

  it('404 for unknown routes, with and without credentials', async () => {
    for (const path of ['/api/nope', '/nothing-here', '/api/jobs/x/y/z']) {
      const response = await harness.http.get(path).set('x-api-key', apiKey);
      expect(response.status).toBe(404);
      expectErrorShape(response.body, 'NOT_FOUND');
    }
    const anonymous = await harness.http.delete('/api/jobs');
    expect(anonymous.status).toBe(404);
    expectErrorShape(anonymous.body, 'NOT_FOUND');
  });

  it('404 for malformed and unknown ids', async () => {
    for (const id of ['not-an-id', '00000000-0000-7000-8000-000000000000', "1'; DROP TABLE jobs;--"]) {
      const response = await harness.http.get(`/api/jobs/${encodeURIComponent(id)}`).set('x-api-key', apiKey);
      expect(response.status).toBe(404);
      expectErrorShape(response.body, 'NOT_FOUND');
    }
  });

  it('500 INTERNAL_ERROR without a stack trace when something unexpected breaks', async () => {
    const broken = await createApiHarnessClone({ breakDatabase: true });
    const response = await broken.get('/api/jobs').set('x-api-key', apiKey);
    expect(response.status).toBe(500);
    expectErrorShape(response.body, 'INTERNAL_ERROR');
    expect(JSON.stringify(response.body)).not.toMatch(/at .*\.ts:\d+/);
    expect(response.body.error.details.requestId).toBe(response.headers['x-request-id']);
  });

  it('echoes a sane X-Request-Id and invents one otherwise', async () => {
    const given = await harness.http.get('/healthz').set('x-request-id', 'trace-123');
    expect(given.headers['x-request-id']).toBe('trace-123');
    const invented = await harness.http.get('/healthz').set('x-request-id', 'bad id with spaces');
    expect(invented.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('probes', () => {
  it('/healthz and /readyz answer without credentials', async () => {
    expect((await harness.http.get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await harness.http.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('/readyz answers 503 when PostgreSQL is unreachable', async () => {
    const broken = await createApiHarnessClone({ breakDatabase: true });
    const response = await broken.get('/readyz');
    expect(response.status).toBe(503);
    expect(response.body.checks).toEqual({ postgres: 'unavailable', redis: 'ok' });
  });
});

/** A second app on the same database (a fresh process: empty caches), optionally with a dead pool. */
async function createApiHarnessClone(options: { breakDatabase?: boolean } = {}) {
  const { createApp } = await import('../src/app.js');
  const { ApiKeyAuthenticator } = await import('../src/auth/authenticate.js');
  const { loadApiConfig } = await import('../src/config.js');
  const { createLogger } = await import('@kairos/runtime');
  const { createDatabase } = await import('@kairos/db');
  const request = (await import('supertest')).default;
  const db = options.breakDatabase ? createDatabase({ url: 'postgresql://postgres@127.0.0.1:1/none' }) : harness.db;
  const logger = createLogger('api-test', 'error');
  logger.silent = true;
  // Authentication against the working database; the failure is injected behind it.
  const apiKeys = new ApiKeyAuthenticator(harness.db, 0);
  const { app } = createApp({
    config: loadApiConfig({} as NodeJS.ProcessEnv),
    db,
    redis: harness.redis,
    logger,
    notifier: { notify: async () => undefined, close: async () => undefined },
    apiKeys,
    testNow: { run: async () => Promise.reject(new Error('no executor')), close: async () => undefined },
    masterKey: harness.masterKey,
    now: () => new Date(),
  });
  return request(app);
}
