/**
 * endpoint.paused_by_planner end to end: the planner pauses an endpoint through its
 * tool loop against the fake model, and the executor's notification worker delivers exactly one
 * endpoint.paused_by_planner to the account's webhook channel, verified with the `standardwebhooks`
 * library as a receiver would. The executor runs alone (no scheduler): the only runs are the ones
 * the test records, so nothing else can raise an event.
 */
import { standardWebhookSecret } from '@kairos/core';
import { Webhook } from 'standardwebhooks';
import { startExecutor, waitFor, type Executor } from '../../../test/engine.js';
import { callTools, submitAnalysis, toolUse } from '../../../test/fake-model.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createTestEndpoint, endpointRow, runAndAnalyse, usePlannerTestbed } from './helpers.js';

interface Delivered {
  type: string;
  data: Record<string, unknown>;
}

const bed = usePlannerTestbed();
let executor: Executor;
let receiver: TestServer;
const verified: Delivered[] = [];
const rejected: string[] = [];

beforeAll(async () => {
  executor = await startExecutor(bed.harness, {
    concurrency: 2,
    egress: { allowPrivateTargets: false, allowCidrs: ['127.0.0.0/8'] },
    notifications: { smtp: null, retryBaseMs: 100 },
  });
  const rotated = await bed.api.post('/api/signing-keys/rotate');
  expect(rotated.status).toBe(200);
  const webhook = new Webhook(standardWebhookSecret(rotated.body.rawKey as string));
  receiver = await startTestServer((req, res, body) => {
    try {
      verified.push(webhook.verify(body, req.headers as Record<string, string>) as Delivered);
      res.statusCode = 204;
    } catch (error) {
      rejected.push((error as Error).message);
      res.statusCode = 401;
    }
    res.end();
  });
});
afterAll(async () => {
  await executor.close();
  await receiver.close();
});

it('delivers one signed endpoint.paused_by_planner when the planner pauses an endpoint', async () => {
  const created = await bed.api.post('/api/notification-channels', {
    name: 'planner pauses',
    type: 'webhook',
    url: `${receiver.origin}/kairos`,
  });
  expect(created.status).toBe(201);
  const endpoint = await createTestEndpoint(bed.api, bed.account.accountId, { name: 'Market feed' });
  const until = new Date(Date.now() + 120 * 60_000).toISOString();
  bed.fake.play([
    callTools(toolUse('pause_until', { pausedUntil: until, reason: 'market closed' })),
    submitAnalysis('closed for two hours'),
  ]);
  await runAndAnalyse(bed.harness, bed.planner, endpoint);
  expect(await endpointRow(bed.harness, endpoint.id)).toMatchObject({ pauseOrigin: 'planner' });

  await waitFor(async () => verified.length >= 1, 10_000, 'the webhook delivery');
  // A second delivery (a retry of a delivered one, a duplicate event) would land within this window.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(rejected).toEqual([]);
  expect(verified).toHaveLength(1);
  expect(verified[0]).toMatchObject({
    type: 'endpoint.paused_by_planner',
    data: expect.objectContaining({ pausedUntil: until, reason: 'market closed' }),
  });
  const rows = await bed.harness.db.prisma.notification.findMany({
    where: { accountId: bed.account.accountId, endpointId: endpoint.id },
  });
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({
    event: 'endpoint.paused_by_planner',
    channelId: created.body.id,
    status: 'delivered',
    attempts: 1,
  });
  const listed = await bed.api.get('/api/notifications');
  expect(listed.status).toBe(200);
  expect(JSON.stringify(listed.body)).toContain('endpoint.paused_by_planner');
});
