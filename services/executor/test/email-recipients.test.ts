/**
 * Email channels confirm their recipients (double opt-in) and test sends are rate limited: the api on
 * a real port (the confirmation link is followed as a person would), the real executor delivering
 * through a local SMTP server (`smtp-server`) that records each mail's envelope.
 *
 * An address that is a verified user of the account receives the channel's notifications at once; any
 * other address receives one confirmation mail (no text the tenant wrote in it) and nothing else until
 * it confirms on the page the link opens (a POST: opening the link confirms nothing).
 */
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { listen } from '../../../test/identity.js';
import { startTestSmtpServer, type TestSmtpServer } from '../../../test/smtp-server.js';

let harness: ApiHarness;
let engine: Engine;
let smtp: TestSmtpServer;
let server: Awaited<ReturnType<typeof listen>>;

/** The mail's text with quoted-printable soft breaks and escapes undone (links are long lines). */
const decode = (raw: string) =>
  raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
/** Each mail accepted so far: its envelope recipients and its decoded text. */
const mailsNow = () => smtp.mails.map((mail) => ({ to: mail.to, text: decode(mail.raw) }));

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  server = await listen();
  harness = await createApiHarness({ env: { KAIROS_SMTP_URL: smtp.url, KAIROS_PUBLIC_URL: server.url } });
  server.serve(harness.app);
  engine = await startEngine(harness, {
    notifications: { smtp: { url: smtp.url, from: 'Kairos <kairos@test.invalid>' }, retryBaseMs: 100 },
  });
});
afterAll(async () => {
  await engine.close();
  await server.close();
  await harness.close();
  await smtp.close();
});

const mailsTo = (address: string) => mailsNow().filter((mail) => mail.to.includes(address));

async function ownerOf(): Promise<{ api: ApiClient; email: string; accountId: string }> {
  const account = await harness.createAccount();
  const user = await harness.db.prisma.user.findUniqueOrThrow({ where: { id: account.userId } });
  return { api: harness.client(account.apiKey), email: user.email, accountId: account.accountId };
}

async function sendTest(api: ApiClient, channelId: string) {
  const sent = await api.post(`/api/notification-channels/${channelId}/test`);
  expect(sent.status).toBe(202);
  return waitFor(
    async () => {
      const row = (await api.get(`/api/notifications?channelId=${channelId}&event=test`)).body.find(
        (item: { id: string }) => item.id === sent.body.id,
      );
      return row?.status === 'delivered' || row?.status === 'failed' ? row : null;
    },
    10_000,
    'the test notification to be sent',
  );
}

const form = (link: string) => Object.fromEntries(new URL(link).searchParams);

describe('email channel recipients', () => {
  it('sends only to verified users of the account until a recipient confirms through its link', async () => {
    const { api, email: owner } = await ownerOf();
    const stranger = `stranger-${Date.now()}@example.test`;
    const other = `other-${Date.now()}@example.test`;
    const created = await api.post('/api/notification-channels', {
      name: 'Cheap <b>pills</b> at spam.example',
      type: 'email',
      recipients: [owner.toUpperCase(), stranger, other],
    });
    expect(created.status).toBe(201);
    const channel = created.body;

    // A test send reaches the account's own verified user only.
    expect(await sendTest(api, channel.id)).toMatchObject({ status: 'delivered' });
    const testMails = mailsNow().filter((mail) => mail.text.includes('Test notification from Kairos'));
    expect(testMails.map((mail) => mail.to)).toEqual([[owner]]);
    expect(channel.pendingRecipients).toEqual([stranger, other]);

    // Each other address gets one confirmation mail with its own link, and nothing the tenant wrote.
    await waitFor(async () => mailsTo(stranger).length === 1 && mailsTo(other).length === 1, 10_000, 'confirmations');
    const confirmation = mailsTo(stranger)[0]!;
    expect(confirmation.to).toEqual([stranger]);
    expect(confirmation.text).not.toContain('pills');
    expect(confirmation.text).not.toContain('spam.example');
    const link = /https?:\/\/\S+\/api\/notification-recipients\/confirm\?\S+/.exec(confirmation.text)![0];
    expect(form(link)).toMatchObject({ channel: channel.id, recipient: stranger, signature: expect.any(String) });
    // The tenant sees the confirmation rows, never the signature that confirms.
    const listed = (await api.get(`/api/notifications?channelId=${channel.id}&event=recipient.confirmation`)).body;
    expect(listed).toHaveLength(2);
    expect(JSON.stringify(listed)).not.toContain(form(link).signature);

    // Opening the link (a mail scanner does) confirms nothing; the page's button does.
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post"');
    expect((await api.get(`/api/notification-channels/${channel.id}`)).body.pendingRecipients).toEqual([
      stranger,
      other,
    ]);
    const confirmed = await fetch(link.split('?')[0]!, { method: 'POST', body: new URLSearchParams(form(link)) });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('confirmed');
    expect((await api.get(`/api/notification-channels/${channel.id}`)).body.pendingRecipients).toEqual([other]);

    // A link altered to confirm another address, or past its expiry, confirms nothing.
    const tampered = new URLSearchParams({ ...form(link), recipient: other });
    expect((await fetch(link.split('?')[0]!, { method: 'POST', body: tampered })).status).toBe(400);
    const late = new URLSearchParams({ ...form(link), expires: String(Math.floor(Date.now() / 1000) - 60) });
    expect((await fetch(link.split('?')[0]!, { method: 'POST', body: late })).status).toBe(400);
    expect((await api.get(`/api/notification-channels/${channel.id}`)).body.pendingRecipients).toEqual([other]);

    // Now the test send reaches the owner and the confirmed address, not the other one.
    const before = smtp.mails.length;
    expect(await sendTest(api, channel.id)).toMatchObject({ status: 'delivered' });
    expect(smtp.mails.slice(before).map((mail) => mail.to)).toEqual([[owner, stranger]]);
  }, 60_000);

  it('refuses a test send while no recipient has confirmed (409)', async () => {
    const { api } = await ownerOf();
    const channel = (
      await api.post('/api/notification-channels', {
        name: 'nobody yet',
        type: 'email',
        recipients: [`nobody-${Date.now()}@example.test`],
      })
    ).body;
    const refused = await api.post(`/api/notification-channels/${channel.id}/test`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('confirmed') });
  });

  it('rate limits test sends per account (10 an hour) and confirmation mails (40 a day)', async () => {
    const { api, accountId } = await ownerOf();
    const hook = (await api.post('/api/notification-channels', { name: 'hook', type: 'webhook', url: server.url }))
      .body;
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 12; attempt += 1) {
      statuses.push((await api.post(`/api/notification-channels/${hook.id}/test`)).status);
    }
    expect(statuses.filter((status) => status === 202)).toHaveLength(10);
    const refused = await api.post(`/api/notification-channels/${hook.id}/test`);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

    const addresses = (from: number) =>
      Array.from({ length: 20 }, (_, index) => `bulk-${accountId.slice(-6)}-${from + index}@example.test`);
    for (const from of [0, 20]) {
      const channel = await api.post('/api/notification-channels', {
        name: 'list',
        type: 'email',
        recipients: addresses(from),
      });
      expect(channel.status).toBe(201);
    }
    const tooMany = await api.post('/api/notification-channels', {
      name: 'one more',
      type: 'email',
      recipients: [`bulk-${accountId.slice(-6)}-40@example.test`],
    });
    expect(tooMany.status).toBe(429);
    expect(tooMany.body.error.code).toBe('RATE_LIMITED');
    expect(await harness.db.prisma.notificationChannel.count({ where: { accountId, type: 'email' } })).toBe(2);
  }, 60_000);
});
