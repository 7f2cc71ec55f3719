/**
 * What a refused receiver tells the tenant: a webhook or Slack URL whose host name resolves to a
 * non-public address fails the notification with a message that names neither the address nor the
 * range, and the operator's callback gets both. A real receiver on 127.0.0.1, reached as `localhost`.
 */
import { startTestServer, type TestServer } from '../../../../test/test-server.js';
import { ChannelSender, type OutgoingNotification } from './channels.js';

let receiver: TestServer;

beforeAll(async () => {
  receiver = await startTestServer((_req, res) => res.writeHead(204).end());
});
afterAll(() => receiver.close());

const notification: OutgoingNotification = {
  id: 'notification-1',
  payload: { type: 'test', timestamp: '2026-11-21T10:00:00.000Z', data: {} },
  signingKeys: ['a'.repeat(64)],
  at: new Date('2026-11-21T10:00:00.000Z'),
};

it.each(['webhook', 'slack'] as const)(
  'a %s receiver resolving to a non-public address: the error says so, the log has the address',
  async (type) => {
    const refused: Record<string, string>[] = [];
    const sender = new ChannelSender({
      egress: { allowPrivateTargets: false, allowCidrs: [] },
      smtp: null,
      userAgent: 'T',
      onBlocked: (refusal) => refused.push(refusal),
    });
    try {
      const channel = {
        id: 'channel-1',
        accountId: 'account-1',
        name: 'hook',
        type,
        url: `http://localhost:${receiver.port}/hook`,
        recipients: [],
        confirmedRecipients: [],
        events: [],
        createdAt: new Date(),
        updatedAt: new Date(),
      };
      const result = await sender.send(channel, notification);
      expect(result).toMatchObject({ ok: false, permanent: true, responseCode: null });
      expect(result.error).toMatch(/^Blocked request: the target's host name resolves to a non-public address/);
      for (const revealing of ['127.0.0.1', '::1', 'localhost', 'loopback'])
        expect(result.error).not.toContain(revealing);
      expect(receiver.connectionCount()).toBe(0);
      expect(refused).toEqual([
        {
          notificationId: 'notification-1',
          hostname: 'localhost',
          address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
          range: 'loopback',
        },
      ]);
    } finally {
      sender.close();
    }
  },
);
