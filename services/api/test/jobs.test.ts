import { createApiHarness, endpointInput, type ApiClient, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
let api: ApiClient;

beforeAll(async () => {
  harness = await createApiHarness();
  api = harness.client((await harness.createAccount()).apiKey);
});
afterAll(() => harness.close());

describe('jobs', () => {
  it('creates a job as active with the documented fields', async () => {
    const response = await api.post('/api/jobs', { name: 'Exports', description: 'Nightly exports' });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      name: 'Exports',
      description: 'Nightly exports',
      status: 'active',
      endpointCount: 0,
    });
    expect(new Date(response.body.createdAt).toISOString()).toBe(response.body.createdAt);
  });

  it('trims the name and accepts a missing description', async () => {
    const response = await api.post('/api/jobs', { name: '  Trimmed  ' });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ name: 'Trimmed', description: null });
  });

  it('gets, updates and lists jobs with a status filter', async () => {
    const created = (await api.post('/api/jobs', { name: 'Listable' })).body;
    expect((await api.get(`/api/jobs/${created.id}`)).body).toEqual(created);

    const updated = await api.patch(`/api/jobs/${created.id}`, { description: 'now described' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.id, name: 'Listable', description: 'now described' });
    const cleared = await api.patch(`/api/jobs/${created.id}`, { description: null });
    expect(cleared.body.description).toBeNull();

    await api.post(`/api/jobs/${created.id}/pause`);
    const paused = await api.get('/api/jobs?status=paused');
    expect(paused.status).toBe(200);
    expect(paused.body.map((job: { id: string }) => job.id)).toEqual([created.id]);
    expect(paused.headers['x-total-count']).toBe('1');
    const all = await api.get('/api/jobs');
    expect(all.body.length).toBeGreaterThanOrEqual(3);
    expect(all.body.every((job: { status: string }) => ['active', 'paused'].includes(job.status))).toBe(true);
  });

  it('pages with limit and offset, newest first', async () => {
    const fresh = harness.client((await harness.createAccount()).apiKey);
    for (const name of ['one', 'two', 'three']) await fresh.post('/api/jobs', { name });
    const firstPage = await fresh.get('/api/jobs?limit=2');
    expect(firstPage.body.map((job: { name: string }) => job.name)).toEqual(['three', 'two']);
    expect(firstPage.headers['x-total-count']).toBe('3');
    const secondPage = await fresh.get('/api/jobs?limit=2&offset=2');
    expect(secondPage.body.map((job: { name: string }) => job.name)).toEqual(['one']);
  });

  describe('state transitions', () => {
    it('pauses, resumes and archives, idempotently', async () => {
      const job = (await api.post('/api/jobs', { name: 'Stateful' })).body;
      const paused = await api.post(`/api/jobs/${job.id}/pause`);
      expect(paused.body).toMatchObject({ success: true, job: { status: 'paused' } });
      expect(paused.body.job.pausedAt).not.toBeNull();
      expect((await api.post(`/api/jobs/${job.id}/pause`)).body.job.status).toBe('paused');
      const resumed = await api.post(`/api/jobs/${job.id}/resume`);
      expect(resumed.body).toMatchObject({ success: true, job: { status: 'active', pausedAt: null } });
      expect((await api.post(`/api/jobs/${job.id}/resume`)).body.job.status).toBe('active');
      const archived = await api.post(`/api/jobs/${job.id}/archive`);
      expect(archived.body).toMatchObject({ success: true, job: { status: 'archived' } });
      expect((await api.post(`/api/jobs/${job.id}/archive`)).status).toBe(200);
    });

    it('archives from paused', async () => {
      const job = (await api.post('/api/jobs', { name: 'Paused then archived' })).body;
      await api.post(`/api/jobs/${job.id}/pause`);
      expect((await api.post(`/api/jobs/${job.id}/archive`)).body.job.status).toBe('archived');
    });

    it('treats archived as final: pause, resume, edit and new endpoints are conflicts', async () => {
      const job = (await api.post('/api/jobs', { name: 'Final' })).body;
      await api.post(`/api/jobs/${job.id}/archive`);
      for (const action of ['pause', 'resume']) {
        const response = await api.post(`/api/jobs/${job.id}/${action}`);
        expect(response.status).toBe(409);
        expect(response.body.error.code).toBe('CONFLICT');
      }
      expect((await api.patch(`/api/jobs/${job.id}`, { name: 'renamed' })).status).toBe(409);
      expect((await api.post(`/api/jobs/${job.id}/endpoints`, endpointInput())).status).toBe(409);
    });

    it('archiving a job archives its endpoints and pausing shows them paused', async () => {
      const job = (await api.post('/api/jobs', { name: 'With endpoints' })).body;
      const endpoint = (await api.post(`/api/jobs/${job.id}/endpoints`, endpointInput())).body;
      await api.post(`/api/jobs/${job.id}/pause`);
      expect((await api.get(`/api/endpoints/${endpoint.id}`)).body).toMatchObject({
        status: 'paused',
        jobPaused: true,
      });
      await api.post(`/api/jobs/${job.id}/archive`);
      const archived = (await api.get(`/api/endpoints/${endpoint.id}`)).body;
      expect(archived.status).toBe('archived');
      expect(archived.archivedAt).not.toBeNull();
      expect(archived.nextRunAt).toBeNull();
      expect((await api.get(`/api/jobs/${job.id}`)).body.endpointCount).toBe(0);
    });
  });

  describe('validation', () => {
    it.each([
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ name: 42 }, 'name'],
      [{ name: 'ok', description: 'x'.repeat(4001) }, 'description'],
      [{ name: 'ok', colour: 'blue' }, 'colour'],
    ])('rejects %j naming %s', async (body, field) => {
      const response = await api.post('/api/jobs', body);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.details.field).toBe(field);
    });

    it.each(['status=deleted', 'limit=0', 'limit=1001', 'offset=-1', 'limit=abc'])(
      'rejects the query %s',
      async (query) => {
        const response = await api.get(`/api/jobs?${query}`);
        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
      },
    );
  });
});
