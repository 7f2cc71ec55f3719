import type { AppError } from '@kairos/core';
import { createLogger } from '@kairos/runtime';
import { createApiHarness, type ApiHarness } from '../../../test/api.js';
import { announceLocalSignIn } from '../src/auth/local-admin.js';
import { resolveExternalUser } from '../src/auth/sign-in.js';
import type { ApiDeps } from '../src/routes/deps.js';
import { Browser, listen, startFakeGitHub, startTestIdp } from '../../../test/identity.js';

type Idp = Awaited<ReturnType<typeof startTestIdp>>;
type GitHub = Awaited<ReturnType<typeof startFakeGitHub>>;

let harness: ApiHarness;
let api: Awaited<ReturnType<typeof listen>>;
let idp: Idp;
let github: GitHub;

beforeAll(async () => {
  const server = await listen();
  idp = await startTestIdp({
    clientId: 'kairos-web',
    clientSecret: 'idp-secret',
    redirectUri: `${server.url}/api/auth/oidc/callback`,
  });
  github = await startFakeGitHub({ clientId: 'gh-client', clientSecret: 'gh-secret' });
  harness = await createApiHarness({
    env: {
      KAIROS_PUBLIC_URL: server.url,
      KAIROS_OIDC_ISSUER: idp.url,
      KAIROS_OIDC_CLIENT_ID: 'kairos-web',
      KAIROS_OIDC_CLIENT_SECRET: 'idp-secret',
      KAIROS_OIDC_NAME: 'Test IdP',
      ...github.env,
    },
  });
  server.serve(harness.app);
  api = server;
});
afterAll(async () => {
  await api.close();
  await idp.close();
  await github.close();
  await harness.close();
});

/** Session-authenticated JSON request through the browser's cookies. */
async function asBrowser(
  browser: Browser,
  path: string,
  init: { method?: string; csrf?: string; body?: unknown } = {},
) {
  const cookies = ['kairos_session', 'kairos_csrf']
    .map((name) => [name, browser.cookie(api.url, name)])
    .filter(([, value]) => value)
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');
  const response = await fetch(`${api.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      cookie: cookies,
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(init.csrf ? { 'x-csrf-token': init.csrf } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const body = (await response.json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  return { status: response.status, body, setCookies: response.headers.getSetCookie() };
}

describe('OpenID Connect sign-in against a local IdP', () => {
  it('signs in end to end: first sign-in creates the user and account (with signing key), then a session', async () => {
    idp.state.user = { sub: 'oidc-alice', email: 'Alice@Example.test', email_verified: true, name: 'Alice' };
    const browser = new Browser();
    const done = await browser.request(`${api.url}/api/auth/oidc/start?returnTo=/jobs?tab=1`);

    // start → IdP authorize → interaction → resume → our callback → returnTo (not served here: 404)
    expect(done.visited[1]).toMatch(new RegExp(`^${idp.url}/auth\\?`));
    expect(new URL(done.visited[1]!).searchParams.get('code_challenge_method')).toBe('S256');
    expect(done.visited.some((url) => url.startsWith(`${api.url}/api/auth/oidc/callback?code=`))).toBe(true);
    expect(done.url).toBe(`${api.url}/jobs?tab=1`);

    const session = browser.setCookies.find((line) => line.startsWith('kairos_session='))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
    expect(session).toMatch(/Path=\//);
    expect(browser.setCookies.find((line) => line.startsWith('kairos_csrf='))).not.toMatch(/HttpOnly/i);

    const me = await asBrowser(browser, '/api/auth/session');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      user: { email: 'alice@example.test', name: 'Alice', role: 'member' },
      account: { tier: 'free' },
      authenticatedBy: 'session',
    });
    expect(me.body.csrfToken).toBe(browser.cookie(api.url, 'kairos_csrf'));

    const user = await harness.db.prisma.user.findFirstOrThrow({
      where: { email: 'alice@example.test' },
      include: { identities: true, account: { include: { signingKey: true } } },
    });
    expect(user.identities).toEqual([expect.objectContaining({ provider: `oidc:${idp.url}`, subject: 'oidc-alice' })]);
    expect(user.account.signingKey).not.toBeNull();
    expect(user.lastLoginAt).not.toBeNull();
    const stored = await harness.db.prisma.webSession.findFirstOrThrow({ where: { userId: user.id } });
    expect(stored.tokenHash).not.toContain(browser.cookie(api.url, 'kairos_session'));
    expect(stored.tokenHash).toMatch(/^[0-9a-f]{64}$/);

    // A second sign-in finds the same user: no second account.
    const again = new Browser();
    await again.request(`${api.url}/api/auth/oidc/start`);
    expect((await asBrowser(again, '/api/auth/session')).body.user.id).toBe(user.id);
    expect(await harness.db.prisma.user.count({ where: { email: 'alice@example.test' } })).toBe(1);
    const events = await harness.db.prisma.auditEvent.findMany({ where: { accountId: user.accountId } });
    expect(events.map((event) => event.action).sort()).toEqual(['account.created', 'auth.signed_in', 'auth.signed_in']);
  });

  it('stores a display name with U+0000 or a lone surrogate made storable', async () => {
    idp.state.user = { sub: 'oidc-erin', email: 'erin@example.test', email_verified: true, name: 'Erin\u0000 \uD800' };
    const browser = new Browser();
    await browser.request(`${api.url}/api/auth/oidc/start`);
    const me = await asBrowser(browser, '/api/auth/session');
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ email: 'erin@example.test', name: 'Erin\uFFFD \uFFFD' });
  });

  it('refuses cookie-authenticated writes without the CSRF token, and signs out', async () => {
    idp.state.user = { sub: 'oidc-bob', email: 'bob@example.test', email_verified: true, name: 'Bob' };
    const browser = new Browser();
    await browser.request(`${api.url}/api/auth/oidc/start`);
    const csrf = browser.cookie(api.url, 'kairos_csrf')!;

    const withoutToken = await asBrowser(browser, '/api/jobs', { method: 'POST', body: { name: 'x' } });
    expect(withoutToken.status).toBe(403);
    expect(withoutToken.body.error.code).toBe('FORBIDDEN');
    const wrongToken = await asBrowser(browser, '/api/jobs', { method: 'POST', body: { name: 'x' }, csrf: 'nope' });
    expect(wrongToken.status).toBe(403);
    const created = await asBrowser(browser, '/api/jobs', { method: 'POST', body: { name: 'From the UI' }, csrf });
    expect(created.status).toBe(201);
    expect((await asBrowser(browser, '/api/jobs')).body.map((job: { name: string }) => job.name)).toEqual([
      'From the UI',
    ]);

    const signOutWithoutToken = await asBrowser(browser, '/api/auth/signout', { method: 'POST' });
    expect(signOutWithoutToken.status).toBe(403);
    const signedOut = await asBrowser(browser, '/api/auth/signout', { method: 'POST', csrf });
    expect(signedOut).toMatchObject({ status: 200, body: { success: true, signedOut: true } });
    expect(signedOut.setCookies).toEqual(
      expect.arrayContaining([expect.stringMatching(/^kairos_session=;.*Expires=Thu, 01 Jan 1970/)]),
    );
    const session = await harness.db.prisma.webSession.findFirstOrThrow({
      where: { user: { email: 'bob@example.test' } },
    });
    expect(session.revokedAt).not.toBeNull();
    expect((await asBrowser(browser, '/api/auth/session')).status).toBe(401);
  });

  it('links an existing user by verified email only', async () => {
    const existing = await harness.createAccount({ email: 'carol@example.test' });
    idp.state.user = { sub: 'oidc-carol', email: 'carol@example.test', email_verified: false, name: 'Carol' };
    const refused = await new Browser().request(`${api.url}/api/auth/oidc/start`);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('has not verified this address');

    idp.state.user.email_verified = true;
    const browser = new Browser();
    await browser.request(`${api.url}/api/auth/oidc/start`);
    expect((await asBrowser(browser, '/api/auth/session')).body.user.id).toBe(existing.userId);
  });

  it('never links a verified sign-in to a user created from an unverified address, nor the reverse', async () => {
    /** Signs in with these claims in a fresh browser; the session's user and the account's job names. */
    const signIn = async (claims: typeof idp.state.user) => {
      idp.state.user = claims;
      const browser = new Browser();
      await browser.request(`${api.url}/api/auth/oidc/start`);
      const me = await asBrowser(browser, '/api/auth/session');
      expect(me.status).toBe(200);
      const csrf = browser.cookie(api.url, 'kairos_csrf')!;
      const jobs = async () =>
        (await asBrowser(browser, '/api/jobs')).body.map((job: { name: string }) => job.name).sort();
      const addJob = (name: string) => asBrowser(browser, '/api/jobs', { method: 'POST', body: { name }, csrf });
      return { userId: me.body.user.id as string, accountId: me.body.account.id as string, jobs, addJob };
    };
    const mallory = { sub: 'oidc-mallory', email: 'victim@example.test', email_verified: false, name: 'Mallory' };
    const victim = { sub: 'oidc-victim', email: 'victim@example.test', email_verified: true, name: 'Victim' };

    // First, someone whose provider does not verify addresses signs in with the victim's address.
    const first = await signIn(mallory);
    expect((await first.addJob('planted')).status).toBe(201);

    // Then the owner of the address signs in through a provider that verified it: a separate account.
    const owner = await signIn(victim);
    expect(owner.userId).not.toBe(first.userId);
    expect(owner.accountId).not.toBe(first.accountId);
    expect((await owner.addJob('mine')).status).toBe(201);
    expect(await owner.jobs()).toEqual(['mine']);

    // The first identity signs in again: still only its own account, nothing of the owner's.
    const again = await signIn(mallory);
    expect(again.userId).toBe(first.userId);
    expect(await again.jobs()).toEqual(['planted']);
    // And the owner again: its own account, never the one created from the unverified address.
    expect((await signIn(victim)).userId).toBe(owner.userId);

    const identities = await harness.db.prisma.userIdentity.findMany({
      where: { subject: { in: ['oidc-mallory', 'oidc-victim'] } },
    });
    expect(Object.fromEntries(identities.map((identity) => [identity.subject, identity.userId]))).toEqual({
      'oidc-mallory': first.userId,
      'oidc-victim': owner.userId,
    });
    // Each user records whether its address was verified.
    const users = await harness.db.prisma.user.findMany({ where: { id: { in: [first.userId, owner.userId] } } });
    expect(Object.fromEntries(users.map((user) => [user.id, [user.email, user.emailVerified]]))).toEqual({
      [first.userId]: ['victim@example.test', false],
      [owner.userId]: ['victim@example.test', true],
    });

    // A third identity, unverified, with the same address: refused (never linked to either user).
    idp.state.user = { sub: 'oidc-trudy', email: 'victim@example.test', email_verified: false, name: 'Trudy' };
    const refused = await new Browser().request(`${api.url}/api/auth/oidc/start`);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('has not verified this address');
  });

  it('links only verified to verified when first sign-ins with one address race', async () => {
    const deps = { db: harness.db, masterKey: harness.masterKey, logger: createLogger('sign-in-test', 'error') };
    const identity = (subject: string, email: string, emailVerified: boolean) =>
      resolveExternalUser(deps as unknown as ApiDeps, {
        provider: 'oidc:race',
        subject,
        email,
        emailVerified,
        name: subject,
      }).then(
        (user) => user.id,
        (error: AppError) => error.code,
      );
    for (let pair = 0; pair < 8; pair += 1) {
      const email = `race-${pair}@example.test`;
      // An unverified and a verified first sign-in at once: never one user. The verified one always gets
      // in; the unverified one gets a user of its own, or is refused when the verified user came first.
      const [unverified, verified] = await Promise.all([
        identity(`u-${pair}`, email, false),
        identity(`v-${pair}`, email, true),
      ]);
      expect(verified).toMatch(/^[0-9a-f-]{36}$/);
      expect(unverified).not.toBe(verified);
      // Two verified ones at once: one user (the address is proved twice).
      const [second, third] = await Promise.all([
        identity(`v2-${pair}`, `race-both-${pair}@example.test`, true),
        identity(`v3-${pair}`, `race-both-${pair}@example.test`, true),
      ]);
      expect(second).toBe(third);
    }
  });

  it('marks an address verified when the identity that created the user later has it verified', async () => {
    idp.state.user = { sub: 'oidc-frank', email: 'frank@example.test', email_verified: false, name: 'Frank' };
    const first = new Browser();
    await first.request(`${api.url}/api/auth/oidc/start`);
    const userId = (await asBrowser(first, '/api/auth/session')).body.user.id;
    expect((await harness.db.prisma.user.findUniqueOrThrow({ where: { id: userId } })).emailVerified).toBe(false);
    idp.state.user.email_verified = true;
    const second = new Browser();
    await second.request(`${api.url}/api/auth/oidc/start`);
    expect((await asBrowser(second, '/api/auth/session')).body.user.id).toBe(userId);
    expect((await harness.db.prisma.user.findUniqueOrThrow({ where: { id: userId } })).emailVerified).toBe(true);
  });

  it('rejects a callback that does not belong to this browser, and open redirects', async () => {
    const forged = await new Browser().request(`${api.url}/api/auth/oidc/callback?code=abc&state=xyz`);
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('expired or was started in another browser');

    idp.state.user = { sub: 'oidc-dave', email: 'dave@example.test', email_verified: true, name: 'Dave' };
    const browser = new Browser();
    const done = await browser.request(`${api.url}/api/auth/oidc/start?returnTo=//evil.example/x`);
    expect(done.url).toBe(`${api.url}/`);
  });

  it('lists the configured providers', async () => {
    const response = await harness.http.get('/api/auth/providers');
    expect(response.body).toEqual({
      providers: [
        { id: 'oidc', name: 'Test IdP', signInUrl: '/api/auth/oidc/start' },
        { id: 'github', name: 'GitHub', signInUrl: '/api/auth/github/start' },
      ],
      localSignIn: false,
    });
  });
});

describe('GitHub sign-in against a local fake', () => {
  it('signs in with the primary verified email, checking client secret and PKCE', async () => {
    const browser = new Browser();
    const done = await browser.request(`${api.url}/api/auth/github/start?returnTo=/settings`);
    expect(done.url).toBe(`${api.url}/settings`);
    expect(github.state.tokenRequests).toBe(1);
    const me = await asBrowser(browser, '/api/auth/session');
    expect(me.body.user).toMatchObject({ email: 'octo@example.test', name: 'Octo Cat' });
    const identity = await harness.db.prisma.userIdentity.findFirstOrThrow({ where: { provider: 'github' } });
    expect(identity.subject).toBe('4242');
  });

  it('shows an error page when GitHub refuses the code', async () => {
    // A callback with a code GitHub never issued, for a flow this browser did start.
    const started = await fetch(`${api.url}/api/auth/github/start`, { redirect: 'manual' });
    const cookie = started.headers
      .getSetCookie()
      .find((line) => line.startsWith('kairos_signin='))!
      .split(';')[0]!;
    const state = new URL(started.headers.get('location')!).searchParams.get('state');
    const response = await fetch(`${api.url}/api/auth/github/callback?code=forged&state=${state}`, {
      headers: { cookie },
      redirect: 'manual',
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('bad_verification_code');
    expect(response.headers.getSetCookie().some((line) => line.startsWith('kairos_session=kls_'))).toBe(false);
  });
});

describe('local admin sign-in link (no identity provider)', () => {
  it('creates the admin once (operator), and the link works once, then never again', async () => {
    const printed: string[] = [];
    const first = await announceLocalSignIn(harness.db, {
      email: 'admin@localhost',
      masterKey: harness.masterKey,
      baseUrl: api.url,
      now: new Date(),
      write: (text) => printed.push(text),
    });
    expect(printed.join('')).toContain(first.url);
    expect(first.url).toMatch(new RegExp(`^${api.url}/api/auth/local\\?token=kls_`));
    const second = await announceLocalSignIn(harness.db, {
      email: 'admin@localhost',
      masterKey: harness.masterKey,
      baseUrl: api.url,
      now: new Date(),
      write: () => undefined,
    });
    expect(second.user.id).toBe(first.user.id);
    expect(await harness.db.prisma.user.count({ where: { email: 'admin@localhost' } })).toBe(1);
    expect(first.user.role).toBe('operator');
    expect(second.expiresAt.getTime() - Date.now()).toBeGreaterThan(14 * 60_000);

    const browser = new Browser();
    const done = await browser.request(first.url);
    expect(done.url).toBe(`${api.url}/`);
    expect((await asBrowser(browser, '/api/auth/session')).body.user).toMatchObject({
      email: 'admin@localhost',
      role: 'operator',
    });

    const reused = await new Browser().request(first.url);
    expect(reused.status).toBe(401);
    expect(reused.text).toContain('invalid, expired or already used');
  });

  it('refuses an expired link', async () => {
    const link = await announceLocalSignIn(harness.db, {
      email: 'admin@localhost',
      masterKey: harness.masterKey,
      baseUrl: api.url,
      now: new Date(Date.now() - 16 * 60_000),
      write: () => undefined,
    });
    expect((await new Browser().request(link.url)).status).toBe(401);
  });
});

describe('GET /api/auth/status', () => {
  it('answers signed out as 200 { signedIn: false } (no 401 for the web UI to log), signed in with the session', async () => {
    const anonymous = await harness.http.get('/api/auth/status');
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toEqual({ signedIn: false, session: null });
    expect(anonymous.headers['cache-control']).toBe('no-store');
    // The same as the protected route says: signed out there is a 401.
    expect((await harness.http.get('/api/auth/session')).status).toBe(401);

    const account = await harness.createAccount({ email: 'status@example.test' });
    const status = await harness.client(account.apiKey).get('/api/auth/status');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      signedIn: true,
      session: { user: { id: account.userId, email: 'status@example.test' }, authenticatedBy: 'api_key' },
    });
    expect(status.body.session).toEqual((await harness.client(account.apiKey).get('/api/auth/session')).body);

    // A wrong credential is refused, as on every route.
    expect((await harness.client('kairos_wrong').get('/api/auth/status')).status).toBe(401);
  });
});
