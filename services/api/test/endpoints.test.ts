import { endpointConfig } from '@kairos/db';
import { createApiHarness, endpointInput, type ApiClient, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
let api: ApiClient;
let jobId: string;

beforeAll(async () => {
  harness = await createApiHarness();
  api = harness.client((await harness.createAccount()).apiKey);
  jobId = (await api.post('/api/jobs', { name: 'Endpoints' })).body.id;
});
afterAll(() => harness.close());

const create = (overrides: Record<string, unknown> = {}) =>
  api.post(`/api/jobs/${jobId}/endpoints`, endpointInput(overrides));

describe('endpoints', () => {
  it('creates an endpoint with defaults and the full record', async () => {
    const response = await create({ description: 'Tighten when orders surge' });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      jobId,
      name: 'Check orders',
      method: 'GET',
      baselineIntervalMs: 60000,
      baselineCron: null,
      timezone: 'UTC',
      timeoutMs: 30000,
      maxResponseSizeKb: 100,
      status: 'active',
      failureCount: 0,
      backoffMultiplier: 1,
      pausedUntil: null,
      hints: { interval: null, oneShot: null },
      description: 'Tighten when orders surge',
      propagateTrace: true,
    });
    expect(typeof response.body.id).toBe('string');
  });

  it('stores the trace context opt-out (propagateTrace), changeable by PATCH; only a boolean', async () => {
    const created = await create({ propagateTrace: false });
    expect(created.status).toBe(201);
    expect(created.body.propagateTrace).toBe(false);
    const stored = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(stored.propagateTrace).toBe(false);
    const path = `/api/jobs/${jobId}/endpoints/${created.body.id}`;
    expect((await api.patch(path, { propagateTrace: true })).body.propagateTrace).toBe(true);
    const invalid = await api.patch(path, { propagateTrace: 'no' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('VALIDATION_ERROR');
    expect((await api.get(path)).body.propagateTrace).toBe(true);
  });

  it('is readable under its job and by id, and listed', async () => {
    const endpoint = (await create({ name: 'Readable' })).body;
    expect((await api.get(`/api/jobs/${jobId}/endpoints/${endpoint.id}`)).body).toEqual(endpoint);
    expect((await api.get(`/api/endpoints/${endpoint.id}`)).body).toEqual(endpoint);
    const list = await api.get(`/api/jobs/${jobId}/endpoints`);
    expect(list.body.map((item: { id: string }) => item.id)).toContain(endpoint.id);
    expect(Number(list.headers['x-total-count'])).toBe(list.body.length);
  });

  it('answers 404 for an endpoint under another job', async () => {
    const endpoint = (await create()).body;
    const otherJob = (await api.post('/api/jobs', { name: 'Other' })).body;
    const response = await api.get(`/api/jobs/${otherJob.id}/endpoints/${endpoint.id}`);
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
  });

  it('accepts a cron baseline with a time zone', async () => {
    const response = await create({
      baselineIntervalMs: undefined,
      baselineCron: '30 2 * * *',
      timezone: 'Europe/Berlin',
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      baselineCron: '30 2 * * *',
      baselineIntervalMs: null,
      timezone: 'Europe/Berlin',
    });
  });

  it('accepts both spellings of headers and body and answers with the canonical one', async () => {
    const canonical = await create({
      method: 'POST',
      headersJson: { 'X-Trace': 'a' },
      bodyJson: { since: '{{lastRunAt}}' },
    });
    expect(canonical.status).toBe(201);
    expect(canonical.body).toMatchObject({ headersJson: { 'X-Trace': 'a' }, bodyJson: { since: '{{lastRunAt}}' } });
    const alias = await create({ method: 'put', headers: { 'X-Trace': 'b' }, body: 'raw text' });
    expect(alias.status).toBe(201);
    expect(alias.body).toMatchObject({ method: 'PUT', headersJson: { 'X-Trace': 'b' }, bodyJson: 'raw text' });
    expect(alias.body).not.toHaveProperty('headers');
  });

  it('masks secret header values and keeps them when the mask is sent back', async () => {
    const created = (await create({ headersJson: { Authorization: 'Bearer s3cret', 'X-Plain': 'visible' } })).body;
    expect(created.headersJson).toEqual({ Authorization: '********', 'X-Plain': 'visible' });
    const patched = await api.patch(`/api/jobs/${jobId}/endpoints/${created.id}`, {
      headersJson: { ...created.headersJson, 'X-Plain': 'changed' },
    });
    expect(patched.status).toBe(200);
    const stored = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: created.id } });
    // Stored sealed (the row holds the mask), opened with the master key.
    expect(stored.headers).toEqual({ Authorization: '********', 'X-Plain': 'changed' });
    expect(stored.sealedHeaders).not.toContain('s3cret');
    expect(endpointConfig(stored, harness.masterKey).headers).toEqual({
      Authorization: 'Bearer s3cret',
      'X-Plain': 'changed',
    });
  });

  it('masks every common secret header name (key, signature, credential, session, private) in every answer', async () => {
    const secrets = {
      'X-Custom-Key': 'k1',
      'X-Signature': 's1',
      'Private-Key': 'p1',
      'X-Access-Key': 'a1',
      'X-Hub-Sig': 'h1',
      'X-Credential': 'c1',
      'X-Session-Id': 'i1',
      'Set-Cookie-Value': 'v1',
      'Proxy-Authorization': 'Basic x',
      'X-Auth-Token': 't1',
      'X-Client-Secret': 'c2',
      'X-Passphrase': 'p2',
    };
    const created = (await create({ headersJson: { ...secrets, Accept: 'application/json' } })).body;
    const masked = { ...Object.fromEntries(Object.keys(secrets).map((name) => [name, '********'])) };
    expect(created.headersJson).toEqual({ ...masked, Accept: 'application/json' });
    const read = await api.get(`/api/endpoints/${created.id}`);
    expect(read.body.headersJson).toEqual({ ...masked, Accept: 'application/json' });
    const listed = await api.get(`/api/jobs/${jobId}/endpoints`);
    const inList = listed.body.find((endpoint: { id: string }) => endpoint.id === created.id);
    expect(inList.headersJson).toEqual({ ...masked, Accept: 'application/json' });
    expect(JSON.stringify([created, read.body, listed.body])).not.toMatch(/"(k1|s1|p1|a1|h1|c1|i1|v1|t1|c2|p2)"/);

    // The mask sent back keeps each stored value.
    const patched = await api.patch(`/api/jobs/${jobId}/endpoints/${created.id}`, {
      headersJson: { ...read.body.headersJson, Accept: 'text/csv' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.headersJson).toEqual({ ...masked, Accept: 'text/csv' });
    const stored = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: created.id } });
    expect(endpointConfig(stored, harness.masterKey).headers).toEqual({ ...secrets, Accept: 'text/csv' });
  });

  describe('PATCH', () => {
    it('updates a subset and validates the resulting configuration', async () => {
      const endpoint = (await create()).body;
      const renamed = await api.patch(`/api/jobs/${jobId}/endpoints/${endpoint.id}`, {
        name: 'Renamed',
        timeoutMs: 5000,
      });
      expect(renamed.body).toMatchObject({ name: 'Renamed', timeoutMs: 5000, baselineIntervalMs: 60000 });
      const tooLow = await api.patch(`/api/jobs/${jobId}/endpoints/${endpoint.id}`, { minIntervalMs: 120000 });
      expect(tooLow.status).toBe(400);
      expect(tooLow.body.error.details.field).toBe('baselineIntervalMs');
    });

    it('switches baseline: setting cron clears the interval and vice versa', async () => {
      const endpoint = (await create()).body;
      const toCron = await api.patch(`/api/jobs/${jobId}/endpoints/${endpoint.id}`, { baselineCron: '*/5 * * * *' });
      expect(toCron.body).toMatchObject({ baselineCron: '*/5 * * * *', baselineIntervalMs: null });
      const back = await api.patch(`/api/jobs/${jobId}/endpoints/${endpoint.id}`, { baselineIntervalMs: 5000 });
      expect(back.body).toMatchObject({ baselineCron: null, baselineIntervalMs: 5000 });
      const none = await api.patch(`/api/jobs/${jobId}/endpoints/${endpoint.id}`, { baselineIntervalMs: null });
      expect(none.status).toBe(400);
    });

    it('refuses a body when the method changes to GET', async () => {
      const endpoint = (await create({ method: 'POST', bodyJson: { a: 1 } })).body;
      const response = await api.patch(`/api/jobs/${jobId}/endpoints/${endpoint.id}`, { method: 'GET' });
      expect(response.status).toBe(400);
      expect(response.body.error.details.field).toBe('bodyJson');
      const cleared = await api.patch(`/api/jobs/${jobId}/endpoints/${endpoint.id}`, { method: 'GET', bodyJson: null });
      expect(cleared.status).toBe(200);
    });
  });

  describe('archive', () => {
    it('archives, is idempotent, hides from the default list and makes the endpoint read-only', async () => {
      const endpoint = (await create({ name: 'To archive' })).body;
      const archived = await api.post(`/api/jobs/${jobId}/endpoints/${endpoint.id}/archive`);
      expect(archived.status).toBe(200);
      expect(archived.body).toMatchObject({
        success: true,
        endpoint: { id: endpoint.id, status: 'archived', nextRunAt: null },
      });
      expect((await api.post(`/api/jobs/${jobId}/endpoints/${endpoint.id}/archive`)).status).toBe(200);
      const list = (await api.get(`/api/jobs/${jobId}/endpoints`)).body.map((item: { id: string }) => item.id);
      expect(list).not.toContain(endpoint.id);
      const withArchived = (await api.get(`/api/jobs/${jobId}/endpoints?includeArchived=true`)).body;
      expect(withArchived.map((item: { id: string }) => item.id)).toContain(endpoint.id);
      const edit = await api.patch(`/api/jobs/${jobId}/endpoints/${endpoint.id}`, { name: 'nope' });
      expect(edit.status).toBe(409);
      expect(edit.body.error.code).toBe('CONFLICT');
    });
  });

  it('notifies the scheduler of every schedule change', async () => {
    const { Queue } = await import('bullmq');
    const queue = new Queue('schedule-changes', { connection: harness.redis, prefix: harness.queuePrefix });
    const before = await queue.getJobCountByTypes('waiting');
    const endpoint = (await create()).body;
    await api.patch(`/api/jobs/${jobId}/endpoints/${endpoint.id}`, { baselineIntervalMs: 2000 });
    await api.post(`/api/jobs/${jobId}/endpoints/${endpoint.id}/archive`);
    const jobs = await queue.getJobs(['waiting'], 0, -1);
    const reasons = jobs
      .filter((job) => job.data.endpointIds.includes(endpoint.id))
      .map((job) => job.data.reason)
      .sort();
    expect(reasons).toEqual(['endpoint-archived', 'endpoint-created', 'endpoint-updated']);
    expect(await queue.getJobCountByTypes('waiting')).toBe(before + 3);
    await queue.close();
  });
});
