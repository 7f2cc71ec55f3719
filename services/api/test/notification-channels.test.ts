/**
 * /api/notification-channels and /api/notifications: validation, paging, tenancy, the
 * SMTP requirement of email channels, the account's thresholds and the endpoint's auto-pause field.
 * Delivery itself is tested end to end in services/executor/test/notifications.test.ts.
 */
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
let withoutSmtp: ApiHarness;
let api: ApiClient;
let other: ApiClient;

beforeAll(async () => {
  harness = await createApiHarness({ env: { KAIROS_SMTP_URL: 'smtp://127.0.0.1:2525' } });
  withoutSmtp = await createApiHarness();
  api = harness.client((await harness.createAccount()).apiKey);
  other = harness.client((await harness.createAccount()).apiKey);
});
afterAll(async () => {
  await harness.close();
  await withoutSmtp.close();
});

const webhook = { name: 'ops hook', type: 'webhook', url: 'https://hooks.test.invalid/kairos' };

describe('notification channels', () => {
  it('creates each type with every event by default, or the events chosen', async () => {
    const hook = await api.post('/api/notification-channels', webhook);
    expect(hook.status).toBe(201);
    expect(hook.body).toMatchObject({ name: 'ops hook', type: 'webhook', url: webhook.url, recipients: [] });
    expect(hook.body.events).toEqual([
      'endpoint.failing',
      'endpoint.recovered',
      'endpoint.auto_paused',
      'endpoint.paused_by_planner',
      'quota.nearly_exhausted',
    ]);
    const slack = await api.post('/api/notification-channels', {
      name: 'slack',
      type: 'slack',
      url: 'https://slack.test.invalid/services/T/B/X',
      events: ['endpoint.auto_paused', 'endpoint.recovered'],
    });
    expect(slack.status).toBe(201);
    expect(slack.body.events).toEqual(['endpoint.auto_paused', 'endpoint.recovered']);
    const email = await api.post('/api/notification-channels', {
      name: 'mail',
      type: 'email',
      recipients: ['oncall@test.invalid'],
    });
    expect(email.status).toBe(201);
    expect(email.body).toMatchObject({ url: null, recipients: ['oncall@test.invalid'] });

    const fetched = await api.get(`/api/notification-channels/${hook.body.id}`);
    expect(fetched.body).toEqual(hook.body);
  });

  it.each([
    ['an unknown type', { name: 'x', type: 'pager', url: 'https://a.test.invalid' }],
    ['a non-http URL', { ...webhook, url: 'ftp://a.test.invalid/x' }],
    ['a relative URL', { ...webhook, url: '/hook' }],
    ['credentials in the URL', { ...webhook, url: 'https://user:pw@a.test.invalid/' }],
    ['an unknown event', { ...webhook, events: ['endpoint.exploded'] }],
    ['an event listed twice', { ...webhook, events: ['endpoint.failing', 'endpoint.failing'] }],
    ['no events', { ...webhook, events: [] }],
    ['an empty name', { ...webhook, name: '  ' }],
    ['recipients on a webhook', { ...webhook, recipients: ['a@test.invalid'] }],
    ['a bad email address', { name: 'm', type: 'email', recipients: ['not-an-address'] }],
    ['no recipients', { name: 'm', type: 'email', recipients: [] }],
    ['a URL on an email channel', { name: 'm', type: 'email', recipients: ['a@test.invalid'], url: webhook.url }],
  ])('refuses %s with 400', async (_what, body) => {
    const response = await api.post('/api/notification-channels', body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses an email channel with 409 when the server has no SMTP settings', async () => {
    const client = withoutSmtp.client((await withoutSmtp.createAccount()).apiKey);
    const response = await client.post('/api/notification-channels', {
      name: 'mail',
      type: 'email',
      recipients: ['oncall@test.invalid'],
    });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect(response.body.error.message).toMatch(/KAIROS_SMTP_URL/);
    expect((await client.post('/api/notification-channels', webhook)).status).toBe(201);
  });

  it('pages the list with X-Total-Count and Link', async () => {
    const client = harness.client((await harness.createAccount()).apiKey);
    for (let index = 0; index < 3; index += 1) {
      expect((await client.post('/api/notification-channels', { ...webhook, name: `hook ${index}` })).status).toBe(201);
    }
    const page = await client.get('/api/notification-channels?limit=2&offset=0');
    expect(page.status).toBe(200);
    expect(page.headers['x-total-count']).toBe('3');
    expect(page.body.map((channel: { name: string }) => channel.name)).toEqual(['hook 2', 'hook 1']);
    expect(page.headers.link).toContain('rel="next"');
    expect((await client.get('/api/notification-channels?limit=0')).status).toBe(400);
  });

  it("keeps accounts apart: another account's channel is 404 to get, test and delete", async () => {
    const hook = (await api.post('/api/notification-channels', webhook)).body;
    expect((await other.get(`/api/notification-channels/${hook.id}`)).status).toBe(404);
    expect((await other.post(`/api/notification-channels/${hook.id}/test`)).status).toBe(404);
    expect((await other.delete(`/api/notification-channels/${hook.id}`)).status).toBe(404);
    expect((await other.get('/api/notification-channels')).body.map((c: { id: string }) => c.id)).not.toContain(
      hook.id,
    );
    expect((await api.get(`/api/notification-channels/${hook.id}`)).status).toBe(200);
    expect((await api.get('/api/notification-channels/not-an-id')).status).toBe(404);
  });

  it('queues a test notification, lists it, and keeps it listed after the channel is deleted', async () => {
    const client = harness.client((await harness.createAccount()).apiKey);
    const hook = (await client.post('/api/notification-channels', webhook)).body;
    const sent = await client.post(`/api/notification-channels/${hook.id}/test`);
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ channelId: hook.id, event: 'test', status: 'pending', attempts: 0 });
    expect(sent.body.payload).toMatchObject({ type: 'test', data: { channelId: hook.id } });

    const listed = await client.get(`/api/notifications?channelId=${hook.id}`);
    expect(listed.headers['x-total-count']).toBe('1');
    expect(listed.body[0].id).toBe(sent.body.id);
    expect((await client.get('/api/notifications?event=endpoint.failing')).body).toEqual([]);
    expect((await client.get('/api/notifications?event=nope')).status).toBe(400);
    expect((await other.get('/api/notifications')).body.map((n: { id: string }) => n.id)).not.toContain(sent.body.id);

    const deleted = await client.delete(`/api/notification-channels/${hook.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.channel.id).toBe(hook.id);
    expect((await client.get(`/api/notification-channels/${hook.id}`)).status).toBe(404);
    const kept = (await client.get('/api/notifications')).body;
    expect(kept).toHaveLength(1);
    expect(kept[0].channelId).toBeNull();
  });
});

describe('thresholds', () => {
  it('has the account settings default to 3 failures and no auto-pause, and validates them', async () => {
    const client = harness.client((await harness.createAccount()).apiKey);
    const account = (await client.get('/api/account')).body;
    expect(account.settings).toMatchObject({ notifyFailureThreshold: 3, autoPauseAfterFailures: null });
    const changed = await client.patch('/api/account/settings', {
      notifyFailureThreshold: 5,
      autoPauseAfterFailures: 20,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.settings).toMatchObject({ notifyFailureThreshold: 5, autoPauseAfterFailures: 20 });
    for (const body of [
      { notifyFailureThreshold: 0 },
      { notifyFailureThreshold: 1001 },
      { autoPauseAfterFailures: 0 },
      { autoPauseAfterFailures: 2.5 },
      { notifyFailureThreshold: null },
    ]) {
      expect((await client.patch('/api/account/settings', body)).status).toBe(400);
    }
    expect((await client.patch('/api/account/settings', { autoPauseAfterFailures: null })).body.settings).toMatchObject(
      {
        autoPauseAfterFailures: null,
      },
    );
  });

  it('stores an endpoint autoPauseAfterFailures (default null) and refuses one out of 1..1000', async () => {
    const client = harness.client((await harness.createAccount()).apiKey);
    const job = (await client.post('/api/jobs', { name: 'auto-pause' })).body;
    const base = { name: 'e', url: 'https://a.test.invalid/', method: 'GET', baselineIntervalMs: 60_000 };
    const plain = await client.post(`/api/jobs/${job.id}/endpoints`, base);
    expect(plain.body).toMatchObject({ autoPauseAfterFailures: null, autoPausedAt: null });
    const set = await client.post(`/api/jobs/${job.id}/endpoints`, { ...base, autoPauseAfterFailures: 5 });
    expect(set.status).toBe(201);
    expect(set.body.autoPauseAfterFailures).toBe(5);
    const patched = await client.patch(`/api/jobs/${job.id}/endpoints/${set.body.id}`, {
      autoPauseAfterFailures: null,
    });
    expect(patched.body.autoPauseAfterFailures).toBeNull();
    for (const value of [0, 1001, -1, 1.5, '3']) {
      const response = await client.post(`/api/jobs/${job.id}/endpoints`, { ...base, autoPauseAfterFailures: value });
      expect(response.status).toBe(400);
    }
  });
});
