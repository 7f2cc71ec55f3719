/**
 * Configuration as code against a real api: keys on jobs and endpoints, export, plan and apply
 * (one transaction, audit-logged, idempotent), prune, YAML, and validation errors that name the
 * document path and change nothing.
 */
import { endpointConfig } from '@kairos/db';
import { stringify } from 'yaml';
import {
  createApiHarness,
  endpointInput,
  type ApiClient,
  type ApiHarness,
  type TestAccount,
} from '../../../test/api.js';

let harness: ApiHarness;

beforeAll(async () => {
  harness = await createApiHarness({ env: { KAIROS_SMTP_URL: 'smtp://127.0.0.1:2525' } });
});
afterAll(async () => {
  await harness.close();
});

/** A fresh account with its client: each test starts from an empty configuration. */
async function fresh(): Promise<{ account: TestAccount; api: ApiClient }> {
  const account = await harness.createAccount();
  return { account, api: harness.client(account.apiKey) };
}

const documentOf = (jobs: unknown[], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'kairos/v1',
  jobs,
  ...extra,
});

type DocumentJob = { key: string; name: string; description?: string; endpoints: Record<string, unknown>[] };

const ordersJob = (): DocumentJob => ({
  key: 'orders',
  name: 'Orders',
  description: 'Order pipeline',
  endpoints: [
    {
      key: 'check',
      name: 'Check orders',
      url: 'https://example.com/orders/check',
      method: 'GET',
      baselineIntervalMs: 60_000,
      headersJson: { Authorization: 'Bearer s3cret', Accept: 'application/json' },
      rules: [{ name: 'then export', when: { runStatus: 'success' }, then: { runEndpoint: 'export' } }],
    },
    {
      key: 'export',
      name: 'Export',
      url: 'https://example.com/orders/export',
      method: 'POST',
      baselineCron: '0 3 * * *',
      timezone: 'Europe/Berlin',
      bodyJson: { since: '{{lastRunAt}}' },
    },
  ],
});

/** Every row a document can touch, to prove that a refused one touched none. */
async function snapshot(accountId: string) {
  const [jobs, endpoints, channels, audit] = await Promise.all([
    harness.db.prisma.job.findMany({ where: { accountId }, orderBy: { id: 'asc' } }),
    harness.db.prisma.endpoint.findMany({ where: { accountId }, orderBy: { id: 'asc' } }),
    harness.db.prisma.notificationChannel.findMany({ where: { accountId }, orderBy: { id: 'asc' } }),
    harness.db.prisma.auditEvent.count({ where: { accountId } }),
  ]);
  return { jobs, endpoints, channels, audit };
}

describe('keys', () => {
  it('names jobs and endpoints uniquely, filters lists by key, and archiving frees the key', async () => {
    const { api } = await fresh();
    const job = await api.post('/api/jobs', { name: 'Orders', key: 'orders' });
    expect(job.status).toBe(201);
    expect(job.body.key).toBe('orders');
    const again = await api.post('/api/jobs', { name: 'Other', key: 'orders' });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toMatchObject({ field: 'key' });
    expect((await api.post('/api/jobs', { name: 'x', key: 'Not A Key' })).status).toBe(400);

    const endpoint = await api.post(`/api/jobs/${job.body.id}/endpoints`, endpointInput({ key: 'check' }));
    expect(endpoint.body.key).toBe('check');
    const twice = await api.post(`/api/jobs/${job.body.id}/endpoints`, endpointInput({ key: 'check' }));
    expect(twice.status).toBe(409);
    expect((await api.get('/api/jobs?key=orders')).body.map((j: { id: string }) => j.id)).toEqual([job.body.id]);
    expect((await api.get(`/api/jobs/${job.body.id}/endpoints?key=check`)).body).toHaveLength(1);

    await api.post(`/api/jobs/${job.body.id}/archive`);
    expect((await api.get(`/api/jobs/${job.body.id}`)).body.key).toBeNull();
    expect((await api.post('/api/jobs', { name: 'Orders again', key: 'orders' })).status).toBe(201);
  });
});

describe('export, plan and apply', () => {
  it('export → apply → plan shows no change, and the export holds no secret', async () => {
    const { account, api } = await fresh();
    // Made through the API without keys: the export derives them and applying it adopts them.
    const job = (await api.post('/api/jobs', { name: 'Billing Runs' })).body;
    const first = (
      await api.post(
        `/api/jobs/${job.id}/endpoints`,
        endpointInput({
          name: 'Charge',
          headersJson: { 'X-Api-Key': 'k-123' },
          jitterMs: 500,
          missedRuns: 'skip',
          // A calendar, its start given with an offset: exported as stored (UTC), planned as unchanged.
          activeFrom: '2030-01-01T00:00:00+01:00',
          blackouts: [
            { cron: '0 1 * * *', durationMs: 3_600_000 },
            { from: '2030-12-24T00:00:00.000Z', to: '2030-12-27T00:00:00.000Z' },
          ],
        }),
      )
    ).body;
    await api.post(
      `/api/jobs/${job.id}/endpoints`,
      endpointInput({
        name: 'Charge',
        method: 'POST',
        bodyJson: 'raw',
        rules: [{ name: 'chain', when: {}, then: { runEndpoint: first.id } }],
      }),
    );
    await api.post('/api/notification-channels', {
      name: 'hook',
      type: 'webhook',
      url: 'https://hooks.test.invalid/k',
    });

    const exported = await api.get('/api/config/export');
    expect(exported.status).toBe(200);
    expect(JSON.stringify(exported.body)).not.toContain('k-123');
    expect(exported.body.jobs[0]).toMatchObject({ key: 'billing-runs', name: 'Billing Runs' });
    expect(exported.body.jobs[0].endpoints.map((e: { key: string }) => e.key)).toEqual(['charge', 'charge-2']);
    expect(exported.body.jobs[0].endpoints[1].rules[0].then.runEndpoint).toBe('charge');
    expect(exported.body.jobs[0].endpoints[0].headersJson).toEqual({ 'X-Api-Key': '********' });
    expect(exported.body.jobs[0].endpoints[0]).toMatchObject({
      activeFrom: '2029-12-31T23:00:00.000Z',
      blackouts: [{ cron: '0 1 * * *', durationMs: 3_600_000 }, { from: '2030-12-24T00:00:00.000Z' }],
    });
    expect(exported.body.jobs[0].endpoints[1]).not.toHaveProperty('blackouts');
    // A field away from its default is exported (missedRuns), one at it is not.
    expect(exported.body.jobs[0].endpoints[0].missedRuns).toBe('skip');
    expect(exported.body.jobs[0].endpoints[1].missedRuns).toBeUndefined();

    const applied = await api.post('/api/config/apply', exported.body);
    expect(applied.status).toBe(200);
    // Only the keys are set: everything else already is as the export says.
    expect(applied.body.changes.flatMap((c: { fields: { field: string }[] }) => c.fields.map((f) => f.field))).toEqual([
      'key',
      'key',
      'key',
    ]);
    const plan = await api.post('/api/config/plan', exported.body);
    expect(plan.body).toEqual({ changes: [], unchanged: 4, prune: false });
    const stored = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: first.id } });
    expect(endpointConfig(stored, harness.masterKey).headers).toEqual({ 'X-Api-Key': 'k-123' });
    expect(stored.key).toBe('charge');

    // The same document again: nothing written, not even an audit event.
    const before = await snapshot(account.accountId);
    const again = await api.post('/api/config/apply', exported.body);
    expect(again.body).toMatchObject({ changes: [], applied: false });
    expect(await snapshot(account.accountId)).toEqual(before);
  });

  it('creates from a document, then plans exactly the changed fields and applies them', async () => {
    const { account, api } = await fresh();
    const created = await api.post('/api/config/apply', documentOf([ordersJob()]));
    expect(created.status).toBe(200);
    expect(created.body.changes.map((c: { action: string; address: string }) => `${c.action} ${c.address}`)).toEqual([
      'create orders',
      'create orders/check',
      'create orders/export',
    ]);
    const ids = created.body.changes.map((c: { id: string }) => c.id);
    const check = (await api.get(`/api/endpoints/${ids[1]}`)).body;
    expect(check).toMatchObject({ key: 'check', baselineIntervalMs: 60_000 });
    expect(check.rules[0].then.runEndpoint).toBe(ids[2]);
    const rows = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: ids[1] } });
    expect(endpointConfig(rows, harness.masterKey).headers).toEqual({
      Authorization: 'Bearer s3cret',
      Accept: 'application/json',
    });
    expect(rows).toMatchObject({
      headers: { Authorization: '********', Accept: 'application/json' },
      // The scheduler plans its first run from this mark (no scheduler runs in this test).
      scheduleDirtyAt: expect.any(Date),
    });

    const changed = ordersJob();
    changed.endpoints[0] = {
      ...changed.endpoints[0],
      baselineIntervalMs: 120_000,
      headersJson: { Authorization: '********', Accept: 'text/plain' },
    };
    changed.description = 'Order pipeline, v2';
    const plan = await api.post('/api/config/plan', documentOf([changed]));
    expect(plan.body).toEqual({
      prune: false,
      unchanged: 1,
      changes: [
        {
          action: 'update',
          kind: 'job',
          address: 'orders',
          path: 'jobs[0]',
          id: ids[0],
          fields: [{ field: 'description', before: 'Order pipeline', after: 'Order pipeline, v2' }],
        },
        {
          action: 'update',
          kind: 'endpoint',
          address: 'orders/check',
          path: 'jobs[0].endpoints[0]',
          id: ids[1],
          fields: [
            { field: 'baselineIntervalMs', before: 60_000, after: 120_000 },
            {
              field: 'headersJson',
              before: { Authorization: '********', Accept: 'application/json' },
              after: { Authorization: '********', Accept: 'text/plain' },
            },
          ],
        },
      ],
    });
    // Planning changed nothing.
    expect((await api.get(`/api/endpoints/${ids[1]}`)).body.baselineIntervalMs).toBe(60_000);

    const applied = await api.post('/api/config/apply', documentOf([changed]));
    expect(applied.body).toMatchObject({ applied: true, changes: plan.body.changes });
    const after = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: ids[1] } });
    expect(endpointConfig(after, harness.masterKey).headers).toEqual({
      Authorization: 'Bearer s3cret',
      Accept: 'text/plain',
    });
    expect(after).toMatchObject({
      baselineIntervalMs: 120_000,
      headers: { Authorization: '********', Accept: 'text/plain' },
      scheduleDirtyAt: expect.any(Date),
    });
    expect((await api.post('/api/config/plan', documentOf([changed]))).body.changes).toEqual([]);

    const audit = await harness.db.prisma.auditEvent.findMany({
      where: { accountId: account.accountId },
      orderBy: { createdAt: 'asc' },
    });
    expect(audit.map((event) => event.action)).toEqual([
      'job.created',
      'endpoint.created',
      'endpoint.created',
      'config.applied',
      'job.updated',
      'endpoint.updated',
      'config.applied',
    ]);
    expect(audit.at(-2)).toMatchObject({
      actorType: 'api_key',
      actorId: account.apiKeyId,
      targetId: ids[1],
      details: { via: 'config', address: 'orders/check', fields: ['baselineIntervalMs', 'headersJson'] },
    });
  });

  it('prune deletes only what the document leaves out, within the sections it has', async () => {
    const { api } = await fresh();
    const other = { key: 'other', name: 'Other', endpoints: [{ ...endpointInput(), key: 'ping' }] };
    const hook = { name: 'hook', type: 'webhook', url: 'https://hooks.test.invalid/k' };
    const created = await api.post(
      '/api/config/apply',
      documentOf([ordersJob(), other], { notificationChannels: [hook] }),
    );
    const ids = Object.fromEntries(created.body.changes.map((c: { address: string; id: string }) => [c.address, c.id]));

    const kept = ordersJob();
    kept.endpoints = kept.endpoints.filter((endpoint) => endpoint.key === 'export');
    // Without prune, leaving things out deletes nothing.
    expect((await api.post('/api/config/plan', documentOf([kept]))).body.changes).toEqual([]);

    // No notificationChannels section: channels are not managed, so not pruned.
    const plan = await api.post('/api/config/plan?prune=true', documentOf([kept]));
    expect(plan.body.changes.map((c: { action: string; address: string }) => `${c.action} ${c.address}`)).toEqual([
      'delete orders/check',
      'delete other',
    ]);
    const applied = await api.post('/api/config/apply?prune=true', documentOf([kept]));
    expect(applied.body.applied).toBe(true);
    expect((await api.get(`/api/endpoints/${ids['orders/check']}`)).body).toMatchObject({
      status: 'archived',
      key: null,
    });
    expect((await api.get(`/api/endpoints/${ids['orders/export']}`)).body.status).toBe('active');
    expect((await api.get(`/api/jobs/${ids.other}`)).body.status).toBe('archived');
    expect((await api.get(`/api/endpoints/${ids['other/ping']}`)).body.status).toBe('archived');
    expect((await api.get(`/api/notification-channels/${ids.hook}`)).status).toBe(200);

    // An empty section is managed: its channels go.
    const channels = await api.post('/api/config/apply?prune=true', documentOf([kept], { notificationChannels: [] }));
    expect(channels.body.changes).toMatchObject([{ action: 'delete', kind: 'notificationChannel', address: 'hook' }]);
    expect((await api.get(`/api/notification-channels/${ids.hook}`)).status).toBe(404);
  });

  it('an invalid document changes nothing and names the document path', async () => {
    const { account, api } = await fresh();
    await api.post('/api/config/apply', documentOf([ordersJob()]));
    const before = await snapshot(account.accountId);

    const second = {
      key: 'second',
      name: 'Second',
      endpoints: [{ ...endpointInput(), key: 'a', baselineIntervalMs: 500 }],
    };
    const refused = await api.post('/api/config/apply', documentOf([ordersJob(), second]));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field: 'jobs[1].endpoints[0].baselineIntervalMs' },
    });

    // Cross-field and document-level checks name their path too.
    const cases: [unknown, string][] = [
      [
        documentOf([{ ...second, endpoints: [{ ...endpointInput(), key: 'a', minIntervalMs: 120_000 }] }]),
        'jobs[0].endpoints[0].baselineIntervalMs',
      ],
      [documentOf([ordersJob(), { ...ordersJob(), name: 'Twice' }]), 'jobs[1].key'],
      [
        documentOf([
          { ...second, endpoints: [{ ...endpointInput(), key: 'a', headersJson: { Authorization: '********' } }] },
        ]),
        'jobs[0].endpoints[0].headersJson.Authorization',
      ],
      [
        documentOf([
          {
            ...second,
            endpoints: [
              { ...endpointInput(), key: 'a', rules: [{ name: 'r', when: {}, then: { runEndpoint: 'nope' } }] },
            ],
          },
        ]),
        'jobs[0].endpoints[0].rules[0].then.runEndpoint',
      ],
      [{ apiVersion: 'kairos/v2', jobs: [] }, 'apiVersion'],
    ];
    for (const [document, field] of cases) {
      const answer = await api.post('/api/config/plan', document);
      expect({ status: answer.status, field: answer.body.error?.details?.field }).toEqual({ status: 400, field });
    }

    // A failure inside the transaction (the 21st channel) undoes what came before it (a new job).
    const channels = Array.from({ length: 21 }, (_, i) => ({
      name: `hook ${i}`,
      type: 'webhook',
      url: 'https://hooks.test.invalid/',
    }));
    const tooMany = await api.post(
      '/api/config/apply',
      documentOf([ordersJob(), second], { notificationChannels: channels }),
    );
    expect(tooMany.status).toBe(400);
    const fixed = { ...second, endpoints: [{ ...endpointInput(), key: 'a' }] };
    const rolledBack = await api.post(
      '/api/config/apply',
      documentOf([ordersJob(), fixed], { notificationChannels: channels }),
    );
    expect(rolledBack.status).toBe(409);
    expect(await snapshot(account.accountId)).toEqual(before);
  });

  it('reads and writes YAML, and serves the JSON Schema', async () => {
    const { api, account } = await fresh();
    const yaml = stringify(documentOf([ordersJob()]));
    const planned = await harness.http
      .post('/api/config/plan')
      .set('x-api-key', account.apiKey)
      .set('content-type', 'application/yaml')
      .send(yaml);
    expect(planned.status).toBe(200);
    expect(planned.body.changes).toHaveLength(3);
    const broken = await harness.http
      .post('/api/config/plan')
      .set('x-api-key', account.apiKey)
      .set('content-type', 'application/yaml')
      .send('apiVersion: kairos/v1\njobs:\n  - key: [unclosed\n');
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { line: expect.any(Number) } });

    await api.post('/api/config/apply', documentOf([ordersJob()]));
    const exported = await harness.http.get('/api/config/export?format=yaml').set('x-api-key', account.apiKey);
    expect(exported.headers['content-type']).toMatch(/^application\/yaml/);
    expect(exported.text).toContain('apiVersion: kairos/v1');
    expect(exported.text).not.toContain('s3cret');
    const replanned = await harness.http
      .post('/api/config/plan')
      .set('x-api-key', account.apiKey)
      .set('content-type', 'application/yaml')
      .send(exported.text);
    expect(replanned.body).toEqual({ changes: [], unchanged: 3, prune: false });

    const schema = await harness.http.get('/api/config/schema.json');
    expect(schema.status).toBe(200);
    expect(schema.headers['content-type']).toMatch(/^application\/schema\+json/);
    const jsonSchema = JSON.parse(schema.text);
    expect(jsonSchema.properties.apiVersion).toMatchObject({ const: 'kairos/v1' });
    expect(Object.keys(jsonSchema.$defs.ConfigEndpoint.properties)).toEqual(
      expect.arrayContaining(['key', 'baselineIntervalMs', 'headersJson', 'rules', 'retry']),
    );
  });
});
