/**
 * Notifications and auto-pause end to end: the real scheduler and executor on a cloned
 * database, targets and receivers on 127.0.0.1 (the engine allows 127.0.0.0/8 through the egress
 * allowlist, as the executor tests do): a webhook receiver that verifies the Standard Webhooks
 * signature with the `standardwebhooks` library, a Slack-shaped receiver, a local SMTP server
 * (`smtp-server`). One notification per state change, never per run.
 */
import { standardWebhookSecret } from '@kairos/core';
import { claimQuotaNotices } from '@kairos/db/system';
import { Webhook } from 'standardwebhooks';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { startTestSmtpServer, type TestSmtpServer } from '../../../test/smtp-server.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';

interface Received {
  type: string;
  data: Record<string, unknown>;
  webhookId: string;
}

let harness: ApiHarness;
let engine: Engine;
let smtp: TestSmtpServer;

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  const smtpUrl = smtp.url;
  harness = await createApiHarness({ env: { KAIROS_SMTP_URL: smtpUrl } });
  engine = await startEngine(harness, {
    notifications: { smtp: { url: smtpUrl, from: 'Kairos <kairos@test.invalid>' }, retryBaseMs: 100 },
  });
});
afterAll(async () => {
  await engine.close();
  await harness.close();
  await smtp.close();
});

/** The account's raw signing key (rotated, so the test holds it as a receiver would). */
async function signingKeyOf(api: ApiClient): Promise<string> {
  const rotated = await api.post('/api/signing-keys/rotate');
  expect(rotated.status).toBe(200);
  return rotated.body.rawKey as string;
}

/** A webhook receiver that accepts only correctly signed requests (401 otherwise). */
async function webhookReceiver(rawKey: string, answer: () => number = () => 204) {
  const verified: Received[] = [];
  const rejected: string[] = [];
  const webhook = new Webhook(standardWebhookSecret(rawKey));
  const server = await startTestServer((req, res, body) => {
    try {
      const payload = webhook.verify(body, req.headers as Record<string, string>) as Received;
      const status = answer();
      if (status < 300) verified.push({ ...payload, webhookId: String(req.headers['webhook-id']) });
      res.statusCode = status;
    } catch (error) {
      rejected.push((error as Error).message);
      res.statusCode = 401;
    }
    res.end();
  });
  return { server, verified, rejected };
}

async function createChannel(api: ApiClient, body: Record<string, unknown>) {
  const created = await api.post('/api/notification-channels', body);
  expect(created.status).toBe(201);
  return created.body as { id: string; events: string[] };
}

async function createEndpoint(api: ApiClient, url: string, extra: Record<string, unknown> = {}) {
  const job = (await api.post('/api/jobs', { name: 'notified' })).body;
  const endpoint = await api.post(`/api/jobs/${job.id}/endpoints`, {
    name: `probe ${url.split('/').pop()}`,
    url,
    method: 'GET',
    baselineIntervalMs: 1000,
    ...extra,
  });
  expect(endpoint.status).toBe(201);
  return endpoint.body as { id: string; jobId: string };
}

describe('state changes', () => {
  let targets: TestServer;
  afterAll(() => targets.close());

  it('sends failing, recovered and auto_paused once each to webhook, Slack and email channels', async () => {
    const account = await harness.createAccount();
    const api = harness.client(account.apiKey);
    const rawKey = await signingKeyOf(api);
    expect((await api.patch('/api/account/settings', { notifyFailureThreshold: 1 })).status).toBe(200);

    const receiver = await webhookReceiver(rawKey);
    const slackMessages: { text: string; blocks: { type: string }[] }[] = [];
    const slack = await startTestServer((req, res, body) => {
      const message = JSON.parse(body) as { text: string; blocks: { type: string }[] };
      const wellFormed =
        req.headers['content-type'] === 'application/json' &&
        typeof message.text === 'string' &&
        Array.isArray(message.blocks) &&
        message.blocks[0]?.type === 'section';
      if (wellFormed) slackMessages.push(message);
      res.statusCode = wellFormed ? 200 : 400;
      res.end(wellFormed ? 'ok' : 'invalid_payload');
    });
    await createChannel(api, { name: 'hook', type: 'webhook', url: `${receiver.server.origin}/kairos` });
    await createChannel(api, {
      name: 'slack',
      type: 'slack',
      url: `${slack.origin}/services/T/B/X`,
      events: ['endpoint.auto_paused'],
    });
    // The account's own (verified) user receives at once; another address would confirm first
    // (email-recipients.test.ts).
    const oncall = (await harness.db.prisma.user.findUniqueOrThrow({ where: { id: account.userId } })).email;
    await createChannel(api, { name: 'mail', type: 'email', recipients: [oncall] });

    // /flaky fails twice then succeeds; /down always fails (auto-paused after 2).
    let flakyCalls = 0;
    targets = await startTestServer((req, res) => {
      if (req.url === '/flaky') {
        flakyCalls += 1;
        res.statusCode = flakyCalls <= 2 ? 500 : 200;
      } else {
        res.statusCode = 500;
      }
      res.end();
    });
    const flaky = await createEndpoint(api, `${targets.origin}/flaky`);
    const down = await createEndpoint(api, `${targets.origin}/down`, { autoPauseAfterFailures: 2 });

    const runsOf = (endpointId: string) => harness.db.prisma.run.findMany({ where: { endpointId } });
    await waitFor(
      async () => (await runsOf(flaky.id)).some((run) => run.status === 'success'),
      20_000,
      'the flaky endpoint to succeed after two failures',
    );
    await waitFor(async () => receiver.verified.length >= 4, 10_000, 'four webhook notifications');

    const byEndpoint = (endpointId: string) =>
      receiver.verified.filter((item) => item.data.endpointId === endpointId).map((item) => item.type);
    expect(byEndpoint(flaky.id)).toEqual(['endpoint.failing', 'endpoint.recovered']);
    expect(byEndpoint(down.id).sort()).toEqual(['endpoint.auto_paused', 'endpoint.failing']);
    expect(receiver.rejected).toEqual([]);
    // Two failed runs of the flaky endpoint raised one failing notification, not two.
    expect((await runsOf(flaky.id)).filter((run) => run.status === 'failed')).toHaveLength(2);

    // The auto-paused endpoint: paused with a reason, no more runs, and resume clears it.
    const paused = (await api.get(`/api/endpoints/${down.id}`)).body;
    expect(paused.status).toBe('paused');
    expect(paused.pauseReason).toMatch(/auto-paused after 2 consecutive failures/);
    expect(paused.autoPausedAt).not.toBeNull();
    expect(paused.autoPauseAfterFailures).toBe(2);
    const downRuns = (await runsOf(down.id)).length;
    expect(downRuns).toBe(2);

    await waitFor(async () => slackMessages.length >= 1 && smtp.mails.length >= 4, 10_000, 'Slack and email');
    expect(slackMessages).toHaveLength(1);
    expect(slackMessages[0]!.text).toMatch(/was paused after 2 consecutive failures/);
    const mailText = smtp.mails.map((mail) => mail.raw).join('\n');
    for (const event of ['endpoint.failing', 'endpoint.recovered', 'endpoint.auto_paused']) {
      expect(mailText).toContain(event);
    }
    expect(mailText).toContain(oncall);

    // Deliveries are recorded and listed, each delivered in one attempt.
    const listed = await api.get('/api/notifications?limit=100');
    expect(listed.status).toBe(200);
    expect(listed.headers['x-total-count']).toBe('9');
    expect(listed.body.every((row: { status: string }) => row.status === 'delivered')).toBe(true);

    // Still paused a backoff later: no run while auto-paused.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await runsOf(down.id)).length).toBe(downRuns);
    const resumed = await api.post(`/api/endpoints/${down.id}/pause`, { pausedUntil: null });
    expect(resumed.status).toBe(200);
    const after = (await api.get(`/api/endpoints/${down.id}`)).body;
    expect(after.status).toBe('active');
    expect(after.autoPausedAt).toBeNull();
    expect(after.pauseReason).toBeNull();
    expect(receiver.verified.length).toBe(4);
    await receiver.server.close();
    await slack.close();
  }, 60_000);
});

describe('delivery', () => {
  it('retries a receiver answering 503, under one webhook-id, and records every attempt', async () => {
    const account = await harness.createAccount();
    const api = harness.client(account.apiKey);
    const rawKey = await signingKeyOf(api);
    let calls = 0;
    const receiver = await webhookReceiver(rawKey, () => (++calls <= 2 ? 503 : 204));
    const channel = await createChannel(api, { name: 'hook', type: 'webhook', url: receiver.server.origin });
    const sent = await api.post(`/api/notification-channels/${channel.id}/test`);
    expect(sent.status).toBe(202);
    expect(sent.body.status).toBe('pending');
    const row = await waitFor(
      async () => {
        const listed = await api.get(`/api/notifications?channelId=${channel.id}`);
        return listed.body[0]?.status === 'delivered' ? listed.body[0] : null;
      },
      10_000,
      'the test notification to be delivered',
    );
    expect(row.attempts).toBe(3);
    expect(row.responseCode).toBe(204);
    expect(receiver.server.requests).toHaveLength(3);
    expect(new Set(receiver.server.requests.map((req) => req.headers['webhook-id']))).toEqual(new Set([sent.body.id]));
    expect(receiver.verified.map((item) => item.type)).toEqual(['test']);
    await receiver.server.close();
  });

  it('refuses a private address through the egress guard, at once and for good', async () => {
    const account = await harness.createAccount();
    const api = harness.client(account.apiKey);
    const channel = await createChannel(api, { name: 'metadata', type: 'slack', url: 'http://169.254.169.254/hook' });
    expect((await api.post(`/api/notification-channels/${channel.id}/test`)).status).toBe(202);
    const row = await waitFor(
      async () => {
        const listed = await api.get(`/api/notifications?channelId=${channel.id}`);
        return listed.body[0]?.status === 'failed' ? listed.body[0] : null;
      },
      10_000,
      'the blocked notification to fail',
    );
    expect(row.attempts).toBe(1);
    expect(row.error).toMatch(/link-local/);
  });

  it('does not sign with a key a receiver cannot verify: another key is rejected', async () => {
    const account = await harness.createAccount();
    const api = harness.client(account.apiKey);
    await signingKeyOf(api);
    const receiver = await webhookReceiver('0'.repeat(64));
    const channel = await createChannel(api, { name: 'hook', type: 'webhook', url: receiver.server.origin });
    await api.post(`/api/notification-channels/${channel.id}/test`);
    await waitFor(async () => receiver.rejected.length > 0, 10_000, 'the receiver to reject');
    expect(receiver.verified).toEqual([]);
    await receiver.server.close();
  });
});

describe('quota.nearly_exhausted', () => {
  it('is claimed once a month per kind, at 90 % of the limit', async () => {
    const account = await harness.createAccount();
    const api = harness.client(account.apiKey);
    await createChannel(api, { name: 'quota', type: 'email', recipients: ['billing@test.invalid'] });
    await harness.db.prisma.account.update({
      where: { id: account.accountId },
      data: { quotaOverrides: { runsPerMonth: 10, aiTokensPerMonth: 1000 }, aiTokensUsed: 950 },
    });
    const now = new Date();
    const first = await claimQuotaNotices(harness.db, now);
    const mine = first.filter((event) => event.accountId === account.accountId);
    expect(mine.map((event) => event.payload.data.quota)).toEqual(['aiTokensPerMonth']);
    expect(mine[0]!.payload.data.percent).toBe(95);
    expect((await claimQuotaNotices(harness.db, now)).filter((e) => e.accountId === account.accountId)).toEqual([]);
  });
});
