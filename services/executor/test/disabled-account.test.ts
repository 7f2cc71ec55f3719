/**
 * A disabled account (accounts.disabledAt, `kairos accounts disable` or PATCH /api/admin/accounts)
 * calls nothing: its planned runs are skipped at admission (the slot recorded as skipped, so the
 * endpoint moves along its grid), its notifications are neither raised nor delivered; enabling it
 * resumes the runs at the next slot. The real scheduler and executor, a target server and a webhook
 * receiver on 127.0.0.1.
 */
import { raiseTestNotification } from '@kairos/db';
import { raiseNotifications } from '@kairos/db/system';
import { createNotificationQueue } from '@kairos/queue';
import { metrics } from '@kairos/runtime';
import { createApiHarness, type ApiClient, type ApiHarness, type TestAccount } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';

let harness: ApiHarness;
let engine: Engine;
let target: TestServer;
let receiver: TestServer;
let operator: ApiClient;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness, { notifications: { smtp: null, retryBaseMs: 100 } });
  target = await startTestServer((_req, res) => res.end('ok'));
  receiver = await startTestServer((_req, res) => res.writeHead(204).end());
  operator = harness.client((await harness.createAccount({ operator: true })).apiKey);
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await receiver.close();
  await harness.close();
});

const setDisabled = async (account: TestAccount, disabled: boolean) => {
  const response = await operator.patch(`/api/admin/accounts/${account.accountId}`, { disabled });
  expect(response.status).toBe(200);
};

const disabledSkips = async () =>
  (await metrics.executionsSkipped.get()).values.find((value) => value.labels.reason === 'account-disabled')?.value ??
  0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a disabled account', () => {
  it('calls no endpoint while disabled (each slot skipped and recorded), and resumes when enabled', async () => {
    const account = await harness.createAccount({ tier: 'enterprise' });
    const api = harness.client(account.apiKey);
    const job = (await api.post('/api/jobs', { name: 'abuse' })).body;
    const endpoint = (
      await api.post(`/api/jobs/${job.id}/endpoints`, {
        name: 'third party',
        url: `${target.origin}/third-party`,
        method: 'GET',
        baselineIntervalMs: 1000,
      })
    ).body;
    const calls = () => target.requests.filter((request) => request.url === '/third-party').length;
    const runs = () => harness.db.prisma.run.count({ where: { endpointId: endpoint.id } });
    await waitFor(async () => calls() >= 1, 5000, 'a first call');

    await setDisabled(account, true);
    // A call admitted just before the change may still finish: settle, then count.
    await sleep(1500);
    const callsWhenDisabled = calls();
    const runsWhenDisabled = await runs();
    const skipsBefore = await disabledSkips();
    await sleep(3000);
    expect(calls()).toBe(callsWhenDisabled);
    expect(await runs()).toBe(runsWhenDisabled);
    // Skipped, not lost: each slot counted, the endpoint moved along its grid with its next slot planned.
    expect(await disabledSkips()).toBeGreaterThanOrEqual(skipsBefore + 2);
    // Read between a skip and its next plan (two writes) the row would show the skipped slot as next.
    const readRow = () => harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    const row = await waitFor(
      async () => {
        const found = await readRow();
        return found.nextRunAt && found.lastScheduledAt && found.nextRunAt > found.lastScheduledAt ? found : null;
      },
      2000,
      'the next slot planned after the skipped one',
    );
    const lastRun = await harness.db.prisma.run.findFirstOrThrow({
      where: { endpointId: endpoint.id },
      orderBy: { scheduledAt: 'desc' },
    });
    expect(row.lastScheduledAt!.getTime()).toBeGreaterThan(lastRun.scheduledAt.getTime() + 1000);
    expect(row.nextRunAt!.getTime()).toBeGreaterThan(row.lastScheduledAt!.getTime());

    await setDisabled(account, false);
    await waitFor(async () => calls() >= callsWhenDisabled + 2, 5000, 'calls after enabling');
    await waitFor(async () => (await runs()) >= runsWhenDisabled + 2, 5000, 'runs recorded after enabling');
  }, 30_000);

  it('raises no notification, and a notification raised before it was disabled is not delivered', async () => {
    const account = await harness.createAccount();
    const api = harness.client(account.apiKey);
    const channel = (
      await api.post('/api/notification-channels', { name: 'hook', type: 'webhook', url: receiver.origin })
    ).body;
    // Raised while enabled (as a recorded run's state change would be), delivered after the account is disabled.
    const pending = await raiseTestNotification(harness.db, account.accountId, channel.id, new Date());
    await setDisabled(account, true);
    const raised = await raiseNotifications(harness.db, [
      {
        accountId: account.accountId,
        endpointId: null,
        payload: { type: 'endpoint.failing', timestamp: new Date().toISOString(), data: {} },
      },
    ]);
    expect(raised).toEqual([]);
    const queue = createNotificationQueue(harness.redis, harness.queuePrefix);
    await queue.enqueue([pending.id]);
    await queue.close();
    const row = await waitFor(
      async () => {
        const found = await harness.db.prisma.notification.findUniqueOrThrow({ where: { id: pending.id } });
        return found.status === 'failed' ? found : null;
      },
      5000,
      'the held notification to fail',
    );
    expect(row.error).toBe('the account is disabled');
    expect(receiver.requests).toHaveLength(0);
    expect(await harness.db.prisma.notification.count({ where: { accountId: account.accountId } })).toBe(1);
    // Refused at the API too: every credential of a disabled account answers 403.
    expect((await api.post(`/api/notification-channels/${channel.id}/test`)).status).toBe(403);
  });
});
