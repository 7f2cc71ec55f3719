/**
 * Invitation mail: with SMTP configured, POST /api/account/invitations also mails the one-time link
 * (through the executors' notification worker, to a local SMTP server); the link in the mail is the
 * one the answer gives and accepting it works; without SMTP nothing is mailed (emailed: false).
 */
import { createApiHarness, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { startTestSmtpServer, type TestSmtpServer } from '../../../test/smtp-server.js';

let harness: ApiHarness;
let engine: Engine;
let smtp: TestSmtpServer;

/** The mail's text with quoted-printable soft breaks and escapes undone (links are long lines). */
const decode = (raw: string) =>
  raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  harness = await createApiHarness({
    env: { KAIROS_SMTP_URL: smtp.url, KAIROS_PUBLIC_URL: 'https://kairos.example.test' },
  });
  engine = await startEngine(harness, {
    notifications: { smtp: { url: smtp.url, from: 'Kairos <kairos@test.invalid>' }, retryBaseMs: 100 },
  });
}, 30_000);
afterAll(async () => {
  await engine.close();
  await smtp.close();
  await harness.close();
});

it('mails the invitation link when SMTP is configured', async () => {
  const alice = await harness.createAccount({ email: 'alice.mail@example.test' });
  const invited = await harness
    .client(alice.apiKey)
    .post('/api/account/invitations', { email: 'Bob.Mail@example.test', role: 'viewer' });
  expect(invited.status).toBe(201);
  expect(invited.body.emailed).toBe(true);
  expect(invited.body.acceptUrl).toBe(`https://kairos.example.test/invitations/accept#token=${invited.body.token}`);

  await waitFor(async () => smtp.mails.length >= 1, 15_000, 'the invitation mail');
  const mail = smtp.mails[0]!;
  expect(mail.to).toEqual(['bob.mail@example.test']);
  const text = decode(mail.raw);
  expect(text).toContain('You are invited to join an account');
  expect(text).toContain('alice.mail@example.test invited you');
  expect(text).toContain('as viewer');
  expect(text).toContain(invited.body.acceptUrl);
}, 30_000);

it('mails nothing without SMTP settings', async () => {
  const plain = await createApiHarness();
  try {
    const owner = await plain.createAccount();
    const invited = await plain.client(owner.apiKey).post('/api/account/invitations', {
      email: 'carol@example.test',
      role: 'editor',
    });
    expect(invited.status).toBe(201);
    expect(invited.body.emailed).toBe(false);
  } finally {
    await plain.close();
  }
});
