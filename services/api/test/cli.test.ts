/**
 * The operator CLI exactly as operators and scripts call it: `pnpm --silent kairos …` from the
 * repository root; with --json, one JSON object on stdout.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { createApiHarness, type ApiHarness } from '../../../test/api.js';

const run = promisify(execFile);
let harness: ApiHarness;

beforeAll(async () => {
  harness = await createApiHarness();
});
afterAll(() => harness.close());

async function kairos(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run('pnpm', ['--silent', 'kairos', ...args], {
      env: { ...process.env, DATABASE_URL: harness.database.url, KAIROS_MASTER_KEY: harness.masterKey.toString('hex') },
      timeout: 90_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

const email = () => `ops-${randomBytes(3).toString('hex')}@example.test`;

describe('kairos CLI', () => {
  it('accounts create --json prints one JSON object with accountId and a working apiKey', async () => {
    const { stdout, code } = await kairos('accounts', 'create', '--email', email(), '--tier', 'pro', '--json');
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    const created = JSON.parse(stdout);
    expect(created).toMatchObject({
      accountId: expect.any(String),
      apiKey: expect.stringMatching(/^kairos_/),
      tier: 'pro',
    });
    const response = await harness.http.get('/api/jobs').set('x-api-key', created.apiKey);
    expect(response.status).toBe(200);
    const signingKey = await harness.db.prisma.signingKey.findUnique({ where: { accountId: created.accountId } });
    expect(signingKey).not.toBeNull();
  }, 120_000);

  it('keys create and keys revoke', async () => {
    const account = JSON.parse((await kairos('accounts', 'create', '--email', email(), '--json')).stdout);
    const created = await kairos('keys', 'create', '--account', account.accountId, '--name', 'ci', '--json');
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).toMatchObject({
      keyId: expect.any(String),
      accountId: account.accountId,
      name: 'ci',
      apiKey: expect.stringMatching(/^kairos_/),
    });
    expect((await harness.http.get('/api/jobs').set('x-api-key', key.apiKey)).status).toBe(200);

    const revoked = await kairos('keys', 'revoke', key.keyId, '--json');
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ keyId: key.keyId, revokedAt: expect.any(String) });
    const stored = await harness.db.prisma.apiKey.findUniqueOrThrow({ where: { id: key.keyId } });
    expect(stored.revokedAt).not.toBeNull();
  }, 240_000);

  it('refuses bad input with a clear message and a non-zero exit', async () => {
    const usage = await kairos('accounts', 'create', '--json');
    expect(usage.code).toBe(64);
    expect(usage.stderr).toMatch(/--email/);
    const duplicate = email();
    await kairos('accounts', 'create', '--email', duplicate, '--json');
    const again = await kairos('accounts', 'create', '--email', duplicate, '--json');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout).error.code).toBe('CONFLICT');
    const unknown = await kairos('keys', 'revoke', '00000000-0000-7000-8000-000000000000', '--json');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error.code).toBe('NOT_FOUND');
  }, 240_000);
});
