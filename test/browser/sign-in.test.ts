/**
 * Signing in and out in a real browser: the UI's "Sign in with …" button goes through the local
 * OpenID Connect provider and back to the page asked for; "Sign out" ends the session.
 */
import { axeViolations, collectConsoleErrors } from './a11y.js';
import { screenshot, startBrowserHarness, waitFor, WAIT_MS, type BrowserHarness } from './harness.js';

let h: BrowserHarness;

beforeAll(async () => {
  h = await startBrowserHarness();
}, 60_000);
afterAll(() => h?.close());

/** GET /api/auth/session from inside the page (its cookies), answering the status. */
const sessionStatus = () =>
  h.page.evaluate(async () => (await fetch('/api/auth/session', { credentials: 'same-origin' })).status);

describe('sign-in', () => {
  it('a signed-out visit is a normal answer: no console error, a page title, no axe violation', async () => {
    const { page } = h;
    const logged = collectConsoleErrors(page);
    await page.goto(h.url('/jobs'));
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor({ state: 'visible' });
    await page.waitForLoadState('networkidle', { timeout: 2000 }).catch(() => undefined);
    logged.stop();
    expect(logged.errors).toEqual([]);
    expect(await page.title()).toBe('Sign in · Kairos');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('shows the sign-in page when signed out, and signs in through the IdP back to the page asked for', async () => {
    const { page } = h;
    await page.goto(h.url('/settings'));
    await page.getByRole('heading', { name: 'Sign in to Kairos' }).waitFor();
    // The heading renders before the providers' query answers: wait for the link (fails if it never shows).
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor({ state: 'visible' });
    await expect(page.getByRole('button', { name: 'Sign out' }).count()).resolves.toBe(0);
    expect(await sessionStatus()).toBe(401);
    await screenshot(page, 'sign-in');

    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings');
    expect(h.idp.state.logins).toBe(1);
    expect(await sessionStatus()).toBe(200);

    // The navigation, and the signed-in person's name in the header.
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const name of ['Dashboard', 'Jobs', 'Settings']) {
      await expect(nav.getByRole('link', { name }).isVisible()).resolves.toBe(true);
    }
    await expect(page.getByRole('banner').getByText(h.user.name, { exact: true }).isVisible()).resolves.toBe(true);

    // First sign-in created the user and the account.
    const user = await h.api.db.prisma.user.findFirstOrThrow({ where: { email: h.user.email } });
    expect(user.name).toBe(h.user.name);

    // Client-side navigation keeps the session.
    await nav.getByRole('link', { name: 'Jobs' }).click();
    await page.waitForURL((url) => url.pathname === '/jobs');
    await nav.getByRole('link', { name: 'Dashboard' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  it('signs out: the sign-in page shows, the session is revoked, a reload stays signed out', async () => {
    const { page } = h;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Kairos' }).waitFor();
    expect(await sessionStatus()).toBe(401);
    await waitFor(
      async () => {
        const session = await h.api.db.prisma.webSession.findFirst({ where: { user: { email: h.user.email } } });
        return session?.revokedAt ?? null;
      },
      WAIT_MS,
      'the web session to be revoked',
    );

    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Kairos' }).waitFor();
    await expect(page.getByRole('button', { name: 'Sign out' }).count()).resolves.toBe(0);
  });

  it('signs in again as the same user (no second account)', async () => {
    await h.signIn(h.page, '/jobs');
    expect(new URL(h.page.url()).pathname).toBe('/jobs');
    expect(await h.api.db.prisma.user.count({ where: { email: h.user.email } })).toBe(1);
    expect(await h.api.db.prisma.account.count()).toBe(1);
  });
});

describe('sign-in without an identity provider', () => {
  let local: BrowserHarness;
  beforeAll(async () => {
    local = await startBrowserHarness({ identityProvider: false });
  }, 60_000);
  afterAll(() => local?.close());

  it('says how to get a new one-time link with the CLI, not to restart the server', async () => {
    const { page } = local;
    await page.goto(local.url('/'));
    const note = page.getByText('No identity provider is configured', { exact: false });
    await note.waitFor();
    const text = (await note.textContent()) ?? '';
    expect(text).toContain('pnpm kairos login-link');
    expect(text).not.toMatch(/restart/i);
    expect(await page.getByRole('link', { name: /^Sign in with/ }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
  });
});
