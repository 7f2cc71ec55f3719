/**
 * Teams end to end: an owner invites, the invited user (a browser session) accepts and acts for the
 * account with the invited role, switches between their accounts; roles change (audited, before and
 * after), an account keeps one owner, ownership is the owners', removal falls the session back.
 */
import { generateSecret } from '@kairos/core';
import { createWebSession } from '@kairos/db/system';
import { createApiHarness, type ApiHarness, type TestAccount } from '../../../test/api.js';

let harness: ApiHarness;
let alice: TestAccount;
let bob: TestAccount;

beforeAll(async () => {
  harness = await createApiHarness();
  alice = await harness.createAccount({ email: 'alice@example.test' });
  bob = await harness.createAccount({ email: 'bob@example.test' });
});
afterAll(() => harness.close());

/** A browser session of a user: cookie and CSRF token, as the sign-in would set them. */
async function browser(userId: string) {
  const secret = generateSecret('kls');
  const csrf = 'csrf-token-for-tests';
  await createWebSession(harness.db, {
    userId,
    tokenHash: secret.hash,
    csrfToken: csrf,
    expiresAt: new Date(Date.now() + 3600_000),
    now: new Date(),
  });
  const cookie = `kairos_session=${secret.raw}`;
  return {
    get: (path: string) => harness.http.get(path).set('cookie', cookie),
    post: (path: string, body: object = {}) =>
      harness.http.post(path).set('cookie', cookie).set('x-csrf-token', csrf).send(body),
  };
}

it('invites, accepts once, acts with the role, switches accounts, and keeps an owner', async () => {
  const owner = harness.client(alice.apiKey);
  const invited = await owner.post('/api/account/invitations', { email: 'bob@example.test', role: 'editor' });
  expect(invited.status).toBe(201);
  expect(invited.body.acceptUrl).toContain(invited.body.token);
  const stored = await harness.db.prisma.invitation.findUniqueOrThrow({ where: { id: invited.body.id } });
  expect(stored.tokenHash).not.toContain(invited.body.token);
  expect((await owner.get('/api/account/invitations')).body.map((i: { id: string }) => i.id)).toEqual([
    invited.body.id,
  ]);

  const bobBrowser = await browser(bob.userId);
  const accepted = await bobBrowser.post('/api/invitations/accept', { token: invited.body.token });
  expect(accepted.status).toBe(200);
  expect(accepted.body).toEqual({ accountId: alice.accountId, role: 'editor' });
  expect((await bobBrowser.post('/api/invitations/accept', { token: invited.body.token })).status).toBe(404);

  // The session now acts for Alice's account, as an editor.
  const session = (await bobBrowser.get('/api/auth/session')).body;
  expect(session.account.id).toBe(alice.accountId);
  expect(session.memberRole).toBe('editor');
  expect(session.accounts.map((a: { id: string }) => a.id)).toEqual([bob.accountId, alice.accountId]);
  expect((await bobBrowser.post('/api/jobs', { name: "Bob's in Alice's" })).status).toBe(201);
  expect(await harness.db.prisma.job.count({ where: { accountId: alice.accountId } })).toBe(1);
  const refused = await bobBrowser.post('/api/account/invitations', { email: 'x@example.test', role: 'viewer' });
  expect(refused.status).toBe(403);

  // Switch back to his own account, then to Alice's again.
  const own = await bobBrowser.post('/api/account/switch', { accountId: bob.accountId });
  expect(own.body).toMatchObject({ account: { id: bob.accountId }, memberRole: 'owner' });
  expect((await bobBrowser.get('/api/jobs')).body).toEqual([]);
  expect((await bobBrowser.post('/api/account/switch', { accountId: alice.accountId })).status).toBe(200);
  const stranger = await harness.createAccount();
  expect((await bobBrowser.post('/api/account/switch', { accountId: stranger.accountId })).status).toBe(404);

  // Demoted to viewer: writes refused at once; the change is audited with before and after.
  const demoted = await owner.patch(`/api/account/members/${bob.userId}`, { role: 'viewer' });
  expect(demoted.body.role).toBe('viewer');
  expect((await bobBrowser.post('/api/jobs', { name: 'no' })).status).toBe(403);
  const event = await harness.db.prisma.auditEvent.findFirstOrThrow({
    where: { accountId: alice.accountId, action: 'member.role_changed' },
  });
  expect(event).toMatchObject({
    actorType: 'api_key',
    actorId: alice.apiKeyId,
    details: { before: { role: 'editor' }, after: { role: 'viewer' } },
  });

  // One owner stays; ownership is the owners'.
  const last = await owner.patch(`/api/account/members/${alice.userId}`, { role: 'admin' });
  expect(last.status).toBe(409);
  await owner.patch(`/api/account/members/${bob.userId}`, { role: 'admin' });
  const asAdmin = await bobBrowser.post('/api/account/invitations', { email: 'o@example.test', role: 'owner' });
  expect(asAdmin.status).toBe(403);
  expect(asAdmin.body.error.details).toMatchObject({ requiredRole: 'owner' });
  expect((await owner.delete(`/api/account/members/${alice.userId}`)).status).toBe(409);

  const members = (await owner.get('/api/account/members')).body;
  expect(members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
    ['alice@example.test', 'owner'],
    ['bob@example.test', 'admin'],
  ]);

  // Removed: his session falls back to his own account.
  expect((await owner.delete(`/api/account/members/${bob.userId}`)).status).toBe(200);
  const after = (await bobBrowser.get('/api/auth/session')).body;
  expect(after.account.id).toBe(bob.accountId);
});

it('refuses an expired or revoked invitation', async () => {
  const owner = harness.client(alice.apiKey);
  const carol = await harness.createAccount();
  const carolBrowser = await browser(carol.userId);
  const expired = await owner.post('/api/account/invitations', { email: 'c@example.test', role: 'viewer' });
  await harness.db.prisma.invitation.update({
    where: { id: expired.body.id },
    data: { expiresAt: new Date(Date.now() - 1000) },
  });
  expect((await carolBrowser.post('/api/invitations/accept', { token: expired.body.token })).status).toBe(404);
  const revoked = await owner.post('/api/account/invitations', { email: 'c@example.test', role: 'viewer' });
  expect((await owner.delete(`/api/account/invitations/${revoked.body.id}`)).status).toBe(200);
  expect((await carolBrowser.post('/api/invitations/accept', { token: revoked.body.token })).status).toBe(404);
  expect(await harness.db.prisma.membership.count({ where: { userId: carol.userId } })).toBe(1);
});
