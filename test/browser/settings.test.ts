/**
 * Settings and the device page in a real browser: the new account's signing key shown once on the
 * first visit, create an API key (shown once) and use it,
 * toggle AI scheduling, rotate the signing key, revoke the API key, and approve (or deny) a
 * device code the way the CLI and the MCP server ask for one. The tests run in order on one
 * signed-in page: the key created first checks the AI setting and is revoked last.
 */
import { decryptSecret } from '@kairos/core';
import type { Locator } from 'playwright-core';
import { acceptNextDialog, screenshot, startBrowserHarness, waitFor, WAIT_MS, type BrowserHarness } from './harness.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

let h: BrowserHarness;
let apiKey: string;

beforeAll(async () => {
  h = await startBrowserHarness();
  await h.signIn(h.page, '/settings');
}, 60_000);
afterAll(() => h?.close());

const section = (name: string) => h.page.getByRole('region', { name });
const withKey = (path: string, key = apiKey) => h.request(path, { headers: { 'x-api-key': key } });

describe('settings', () => {
  it('shows every section', async () => {
    await h.page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    for (const name of ['API keys', 'Signing key', 'AI features', 'Connected devices', 'Usage']) {
      await section(name).getByRole('heading', { name, level: 2 }).waitFor();
    }
  });

  it("shows the new account's signing key once, on the first visit", async () => {
    // The account was created by the IdP sign-in, which shows no key: Settings reveals it once.
    const signing = section('Signing key');
    const secret = signing.getByRole('group', { name: 'Your signing key' });
    await secret.getByText('will not be shown again', { exact: false }).waitFor();
    const rawKey = ((await secret.locator('.secret code').textContent()) ?? '').trim();
    const stored = await h.api.db.prisma.signingKey.findFirstOrThrow({ where: { accountId: await h.accountId() } });
    expect(decryptSecret(stored.encryptedKey, h.api.masterKey)).toBe(rawKey);
    expect(stored.revealedAt).not.toBeNull();
    await secret.getByRole('button', { name: 'Done' }).click();
    await secret.waitFor({ state: 'detached' });

    // Never again: a reload shows the key's prefix only.
    await h.page.reload();
    await signing.getByText(`${stored.keyPrefix}…`).waitFor();
    await h.page.waitForResponse((response) => response.url().endsWith('/api/signing-keys'), { timeout: WAIT_MS });
    expect(await signing.getByRole('group', { name: 'Your signing key' }).count()).toBe(0);
    expect(await h.page.getByText(rawKey).count()).toBe(0);
  });

  it('creates an API key, shows it once, and the key works', async () => {
    const keys = section('API keys');
    await keys.getByLabel('Key name').fill('Browser pipeline');
    await keys.getByRole('button', { name: 'Create API key' }).click();

    const secret = keys.getByRole('group', { name: 'New API key' });
    await secret.getByText('shown only once', { exact: false }).waitFor();
    apiKey = ((await secret.locator('.secret code').textContent()) ?? '').trim();
    expect(apiKey).toMatch(/^kairos_[\w-]{20,}$/);
    await keys
      .getByRole('table', { name: 'Active API keys' })
      .getByRole('row', { name: /Browser pipeline/ })
      .waitFor();
    expect(await keys.getByLabel('Key name').inputValue()).toBe('');

    const account = await withKey('/api/account');
    expect(account.status).toBe(200);
    expect(account.body.id).toBe(await h.accountId());

    // "Done" forgets the key: it is nowhere on the page any more.
    await secret.getByRole('button', { name: 'Done' }).click();
    await secret.waitFor({ state: 'detached' });
    expect(await h.page.getByText(apiKey).count()).toBe(0);
  });

  it('refuses a key without a name, next to the field', async () => {
    const keys = section('API keys');
    await keys.getByRole('button', { name: 'Create API key' }).click();
    await keys.getByText('Give the key a name.').waitFor();
    expect(await keys.getByLabel('Key name').getAttribute('aria-invalid')).toBe('true');
  });

  it('toggles AI scheduling and shadow mode, saved in the account settings', async () => {
    const ai = section('AI features');
    const enabled = ai.getByRole('checkbox', { name: 'Enable AI Scheduling' });
    const shadow = ai.getByRole('checkbox', { name: 'Shadow mode' });
    expect(await enabled.isChecked()).toBe(true); // the default for a new account
    expect(await shadow.isChecked()).toBe(false);

    const settingsNow = async () => (await withKey('/api/account')).body.settings;
    // click, not check(): the box shows the requested value from the next tick (the mutation's
    // variables), which check() would take for a click that did nothing.
    const set = async (box: Locator, checked: boolean) => {
      await box.click();
      await waitFor(async () => (await box.isChecked()) === checked && (await box.isEnabled()), WAIT_MS, 'saved');
    };
    await set(enabled, false);
    await waitFor(async () => (await settingsNow()).aiSchedulingEnabled === false, WAIT_MS, 'AI scheduling off');
    await set(shadow, true);
    await waitFor(async () => (await settingsNow()).aiShadowMode === true, WAIT_MS, 'shadow mode on');
    expect(await settingsNow()).toEqual({
      aiSchedulingEnabled: false,
      aiShadowMode: true,
      aiRules: false,
      hostLimits: [],
      signingKeyGraceMinutes: 0,
      notifyFailureThreshold: 3,
      autoPauseAfterFailures: null,
    });

    // The page's own refetch (every 3 s) agrees: the boxes stay as set.
    await h.page.waitForResponse((response) => response.url().endsWith('/api/account'), { timeout: WAIT_MS });
    expect(await enabled.isChecked()).toBe(false);
    expect(await shadow.isChecked()).toBe(true);

    await set(enabled, true);
    await set(shadow, false);
    await waitFor(
      async () => {
        const settings = await settingsNow();
        return settings.aiSchedulingEnabled === true && settings.aiShadowMode === false;
      },
      WAIT_MS,
      'AI scheduling back on, shadow mode off',
    );
    const account = await h.api.db.prisma.account.findUniqueOrThrow({ where: { id: await h.accountId() } });
    expect(account).toMatchObject({ aiSchedulingEnabled: true, aiShadowMode: false });
  });

  it('rotates the signing key after confirming, showing the new key once', async () => {
    const signing = section('Signing key');
    const before = await h.api.db.prisma.signingKey.findFirstOrThrow({ where: { accountId: await h.accountId() } });
    await signing.getByText(`${before.keyPrefix}…`).waitFor();

    const asked = acceptNextDialog(h.page);
    await signing.getByRole('button', { name: 'Rotate signing key' }).click();
    expect(await asked).toMatch(/Rotate the signing key\?/);
    const secret = signing.getByRole('group', { name: 'New signing key' });
    const rawKey = ((await secret.locator('.secret code').textContent()) ?? '').trim();
    expect(rawKey).toMatch(/^[0-9a-f]{64}$/);
    const after = await h.api.db.prisma.signingKey.findFirstOrThrow({ where: { accountId: await h.accountId() } });
    expect(after.keyPrefix).not.toBe(before.keyPrefix);
    expect(rawKey.startsWith(after.keyPrefix)).toBe(true);
    await signing.getByText(`${after.keyPrefix}…`).waitFor();
    await secret.getByRole('button', { name: 'Done' }).click();
    await secret.waitFor({ state: 'detached' });
  });

  it('sets a rotation grace window, shows the previous key until revoked after confirming', async () => {
    const signing = section('Signing key');
    const accountId = await h.accountId();
    const before = await h.api.db.prisma.signingKey.findFirstOrThrow({ where: { accountId } });
    await signing.getByLabel('Grace window (minutes)').fill('90');
    await signing.getByRole('button', { name: 'Save grace window' }).click();
    await waitFor(
      async () =>
        (await h.api.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).signingKeyGraceMinutes === 90,
      WAIT_MS,
      'grace window saved',
    );

    const rotated = acceptNextDialog(h.page);
    await signing.getByRole('button', { name: 'Rotate signing key' }).click();
    await rotated;
    const secret = signing.getByRole('group', { name: 'New signing key' });
    await secret.getByRole('button', { name: 'Done' }).click();
    await signing.getByText(`${before.keyPrefix}…`).waitFor(); // the previous key, still signing

    const asked = acceptNextDialog(h.page);
    await signing.getByRole('button', { name: 'Revoke previous key now' }).click();
    expect(await asked).toMatch(/Revoke the previous signing key now\?/);
    // The button is renamed "Revoking…" while the request runs: wait for the window's text to go, which
    // happens only after the revoke succeeded and the key was read again.
    await signing.getByText(`${before.keyPrefix}…`).waitFor({ state: 'detached' });
    const after = await h.api.db.prisma.signingKey.findFirstOrThrow({ where: { accountId } });
    expect(after).toMatchObject({ previousKeyPrefix: null, previousEncryptedKey: null, previousExpiresAt: null });
  });

  it('creates a signing key when the account has none', async () => {
    const signing = section('Signing key');
    await h.api.db.prisma.signingKey.deleteMany({ where: { accountId: await h.accountId() } });
    // The page notices on its next refetch (every 3 s), without a reload.
    await signing.getByText('This account has no signing key.').waitFor();
    await signing.getByRole('button', { name: 'Create signing key' }).click();
    const secret = signing.getByRole('group', { name: 'New signing key' });
    const rawKey = ((await secret.locator('.secret code').textContent()) ?? '').trim();
    expect(rawKey).toMatch(/^[0-9a-f]{64}$/);
    const created = await h.api.db.prisma.signingKey.findFirstOrThrow({ where: { accountId: await h.accountId() } });
    expect(rawKey.startsWith(created.keyPrefix)).toBe(true);
    await signing.getByRole('button', { name: 'Rotate signing key' }).waitFor();
    await secret.getByRole('button', { name: 'Done' }).click();
  });

  it('revokes the API key after confirming: it stops working at once', async () => {
    const keys = section('API keys');
    const row = keys.getByRole('table', { name: 'Active API keys' }).getByRole('row', { name: /Browser pipeline/ });
    const asked = acceptNextDialog(h.page);
    await row.getByRole('button', { name: 'Revoke' }).click();
    expect(await asked).toContain('Browser pipeline');
    await row.waitFor({ state: 'detached' });
    await keys.getByText('Revoked keys (1)').click(); // <summary>: opens the folded list
    await keys
      .getByRole('table', { name: 'Revoked API keys' })
      .getByRole('row', { name: /Browser pipeline/ })
      .waitFor();
    expect((await withKey('/api/account')).status).toBe(401);
  });

  it('dismissing the confirmation revokes nothing', async () => {
    const keys = section('API keys');
    await keys.getByLabel('Key name').fill('Kept key');
    await keys.getByRole('button', { name: 'Create API key' }).click();
    const row = keys.getByRole('table', { name: 'Active API keys' }).getByRole('row', { name: /Kept key/ });
    h.page.once('dialog', (dialog) => void dialog.dismiss());
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke' }).waitFor(); // still there, still live
    const stored = await h.api.db.prisma.apiKey.findFirstOrThrow({ where: { name: 'Kept key' } });
    expect(stored.revokedAt).toBeNull();
  });
});

describe('device page', () => {
  const requestCode = async (clientName: string) => {
    const response = await h.request('/api/auth/device/code', { method: 'POST', body: { client_name: clientName } });
    expect(response.status).toBe(200);
    return response.body as { device_code: string; user_code: string; verification_uri_complete: string };
  };
  const poll = (deviceCode: string) =>
    h.request('/api/auth/device/token', {
      method: 'POST',
      body: { device_code: deviceCode, grant_type: DEVICE_GRANT },
    });

  it('approves a device code: the device gets an access token that works as a Bearer token', async () => {
    const code = await requestCode('Browser test CLI');
    expect(code.verification_uri_complete).toBe(h.url(`/device?user_code=${code.user_code}`));
    expect((await poll(code.device_code)).body.error).toBe('authorization_pending');

    await h.page.goto(code.verification_uri_complete);
    await h.page.getByRole('heading', { name: 'Connect a device' }).waitFor();
    expect(await h.page.getByLabel('Device code').inputValue()).toBe(code.user_code);
    await screenshot(h.page, 'device');
    await h.page.getByRole('button', { name: 'Approve' }).click();
    await h.page.getByRole('heading', { name: 'Device approved' }).waitFor();
    await h.page.getByText('Browser test CLI', { exact: false }).first().waitFor();

    // The approval is stored once the page says so: the device's next poll gets the token (an
    // approved code is answered whatever the polling interval).
    const issued = await poll(code.device_code);
    expect(issued.status).toBe(200);
    const token = issued.body as { access_token: string; token_type: string };
    expect(token.token_type).toBe('Bearer');
    const session = await h.request('/api/auth/session', {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ authenticatedBy: 'access_token', user: { email: h.user.email } });

    // Settings › Connected devices lists it.
    await h.page.getByRole('link', { name: 'See connected devices' }).click();
    await section('Connected devices')
      .getByRole('row', { name: /Browser test CLI/ })
      .waitFor();
    await screenshot(h.page, 'settings');
  });

  it('denies a device code typed by hand: the device is refused', async () => {
    const code = await requestCode('Unknown laptop');
    await h.page.goto(h.url('/device'));
    await h.page.getByLabel('Device code').fill(code.user_code.toLowerCase().replace('-', ''));
    await h.page.getByRole('button', { name: 'Deny' }).click();
    await h.page.getByRole('heading', { name: 'Device denied' }).waitFor();
    expect((await poll(code.device_code)).body.error).toBe('access_denied');
  });

  it('says so when the code is unknown, next to the field', async () => {
    await h.page.getByRole('button', { name: 'Enter another code' }).click();
    await h.page.getByLabel('Device code').fill('BBBB-BBBB');
    await h.page.getByRole('button', { name: 'Approve' }).click();
    await h.page.getByText(/no pending device request with this code/i).waitFor();
    expect(await h.page.getByLabel('Device code').getAttribute('aria-invalid')).toBe('true');
  });
});
