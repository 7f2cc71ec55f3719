/**
 * What a new operator needs from the CLI on day one, run exactly as they run it
 * (`pnpm --silent kairos …`): the signing key shown once where the account is created, and a fresh
 * one-time sign-in link without restarting the api.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { decryptSecret, signPayload, verifySignature } from '@kairos/core';
import { createApiHarness, type ApiHarness } from '../../../test/api.js';

const run = promisify(execFile);
const PUBLIC_URL = 'http://kairos.example.test:8080';
let harness: ApiHarness;
let adminEmail: string;

beforeAll(async () => {
  harness = await createApiHarness();
  adminEmail = `admin-${randomBytes(3).toString('hex')}@example.test`;
});
afterAll(() => harness.close());

async function kairos(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run('pnpm', ['--silent', 'kairos', ...args], {
      env: {
        ...process.env,
        DATABASE_URL: harness.database.url,
        KAIROS_MASTER_KEY: harness.masterKey.toString('hex'),
        KAIROS_ADMIN_EMAIL: adminEmail,
        KAIROS_PUBLIC_URL: PUBLIC_URL,
      },
      timeout: 90_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

/** Follows a printed link on the harness's api: the session cookie it sets, or the refusal. */
async function open(url: string) {
  expect(url.startsWith(`${PUBLIC_URL}/api/auth/local?token=kls_`)).toBe(true);
  const { pathname, search } = new URL(url);
  return harness.http.get(`${pathname}${search}`).redirects(0);
}

const sessionCookie = (response: { headers: Record<string, unknown> }) =>
  ([] as string[])
    .concat((response.headers['set-cookie'] as string[] | undefined) ?? [])
    .find((line) => line.startsWith('kairos_session='));

describe('kairos accounts create --json', () => {
  it("prints the account's signing key once: the key Kairos signs its requests with", async () => {
    const email = `first-${randomBytes(3).toString('hex')}@example.test`;
    const { stdout, code } = await kairos('accounts', 'create', '--email', email, '--json');
    expect(code).toBe(0);
    const created = JSON.parse(stdout);
    expect(created.signingKey).toMatch(/^[0-9a-f]{64}$/);
    expect(created.signingKeyPrefix).toBe(created.signingKey.slice(0, 8));
    // The stored (encrypted) key is the one printed, so a receiver holding the printed key verifies.
    const stored = await harness.db.prisma.signingKey.findUniqueOrThrow({ where: { accountId: created.accountId } });
    const storedKey = decryptSecret(stored.encryptedKey, harness.masterKey);
    expect(storedKey).toBe(created.signingKey);
    const now = Math.floor(Date.now() / 1000);
    expect(verifySignature(created.signingKey, now, '{}', signPayload(storedKey, now, '{}'), now)).toBe(true);
    expect(stored.encryptedKey).not.toContain(created.signingKey);
    // Printed here, so it counts as shown: the web UI's Settings does not show it again.
    expect(stored.revealedAt).not.toBeNull();
  }, 120_000);
});

describe('kairos login-link', () => {
  it('issues a fresh one-time link for the local admin (created if missing), each working once', async () => {
    const { stdout, code } = await kairos('login-link', '--json');
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    const first = JSON.parse(stdout);
    expect(first).toMatchObject({ email: adminEmail, userId: expect.any(String) });
    const minutesLeft = (Date.parse(first.expiresAt) - Date.now()) / 60_000;
    expect(minutesLeft).toBeGreaterThan(14);
    expect(minutesLeft).toBeLessThanOrEqual(15);
    const admin = await harness.db.prisma.user.findFirstOrThrow({ where: { email: adminEmail } });
    expect(admin).toMatchObject({ id: first.userId, role: 'operator' });

    const second = JSON.parse((await kairos('login-link', '--json')).stdout);
    expect(second.userId).toBe(first.userId);
    expect(second.url).not.toBe(first.url);
    expect(await harness.db.prisma.user.count({ where: { email: adminEmail } })).toBe(1);

    const signedIn = await open(first.url);
    expect(signedIn.status).toBe(302);
    expect(sessionCookie(signedIn)).toBeDefined();
    const reused = await open(first.url);
    expect(reused.status).toBe(401);
    expect(reused.text).toContain('kairos login-link');
    expect(sessionCookie(await open(second.url))).toBeDefined();
  }, 240_000);

  it('--email signs in another existing user; an unknown email is refused', async () => {
    const email = `member-${randomBytes(3).toString('hex')}@example.test`;
    const account = JSON.parse((await kairos('accounts', 'create', '--email', email, '--json')).stdout);
    const { stdout, code } = await kairos('login-link', '--email', email.toUpperCase(), '--json');
    expect(code).toBe(0);
    const link = JSON.parse(stdout);
    expect(link).toMatchObject({ email, userId: account.userId });
    expect((await open(link.url)).status).toBe(302);

    const unknown = await kairos('login-link', '--email', 'nobody@example.test', '--json');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error.code).toBe('NOT_FOUND');
    expect(await harness.db.prisma.user.count({ where: { email: 'nobody@example.test' } })).toBe(0);

    const text = await kairos('login-link', '--email', email);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^one-time sign-in link for .+, valid for 15 minutes:\nhttp:\/\/\S+\n$/);
  }, 240_000);
});
