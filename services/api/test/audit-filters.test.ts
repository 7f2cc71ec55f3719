/**
 * The audit log's filters: by action, actor (kind and id), resource kind and time range, combined;
 * a bad filter answers 400.
 */
import { createApiHarness, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
beforeAll(async () => {
  harness = await createApiHarness();
});
afterAll(() => harness.close());

it('filters by action, actor, resource and time range', async () => {
  const owner = await harness.createAccount();
  const api = harness.client(owner.apiKey);
  const job = (await api.post('/api/jobs', { name: 'Audited' })).body;
  await api.patch(`/api/jobs/${job.id}`, { name: 'Audited again' });
  const all = (await api.get('/api/audit-events')).body as { action: string; createdAt: string }[];
  expect(all.map((event) => event.action)).toEqual(expect.arrayContaining(['job.created', 'job.updated']));

  // An update names its fields with their values before and after, as the API shows them.
  const updated = all.find((event) => event.action === 'job.updated') as unknown as { details: unknown };
  expect(updated.details).toEqual({ fields: ['name'], before: { name: 'Audited' }, after: { name: 'Audited again' } });
  const endpoint = (
    await api.post(`/api/jobs/${job.id}/endpoints`, {
      name: 'Audited endpoint',
      url: 'https://example.com/hook',
      method: 'GET',
      baselineIntervalMs: 3_600_000,
      headersJson: { Authorization: 'Bearer audited-secret' },
    })
  ).body;
  await api.patch(`/api/jobs/${job.id}/endpoints/${endpoint.id}`, {
    baselineIntervalMs: 7_200_000,
    headersJson: { Authorization: 'Bearer rotated-secret' },
  });
  const endpointEvent = (
    (await api.get('/api/audit-events?action=endpoint.updated')).body as { details: Record<string, unknown> }[]
  )[0]!;
  expect(endpointEvent.details).toEqual({
    fields: ['baselineIntervalMs', 'headersJson'],
    before: { baselineIntervalMs: 3_600_000, headersJson: { Authorization: '********' } },
    after: { baselineIntervalMs: 7_200_000, headersJson: { Authorization: '********' } },
  });
  expect(JSON.stringify(endpointEvent)).not.toMatch(/secret/);

  const byKey = await api.get(`/api/audit-events?actorType=api_key&actorId=${owner.apiKeyId}&targetType=job`);
  expect(byKey.status).toBe(200);
  expect(byKey.body.map((event: { action: string }) => event.action).sort()).toEqual(['job.created', 'job.updated']);
  expect((await api.get('/api/audit-events?actorType=planner')).body).toEqual([]);

  const created = all.find((event) => event.action === 'job.created')!.createdAt;
  const since = await api.get(`/api/audit-events?targetType=job&since=${encodeURIComponent(created)}`);
  expect(since.body.length).toBe(2);
  const until = await api.get(`/api/audit-events?targetType=job&until=${encodeURIComponent(created)}`);
  expect(until.body).toEqual([]);
  expect(until.headers['x-total-count']).toBe('0');

  expect((await api.get('/api/audit-events?since=yesterday')).status).toBe(400);
  expect((await api.get('/api/audit-events?actorType=robot')).status).toBe(400);
  const reversed = await api.get(`/api/audit-events?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z`);
  expect(reversed.status).toBe(400);
  expect(reversed.body.error.code).toBe('VALIDATION_ERROR');
});
