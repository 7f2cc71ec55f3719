import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decryptSecret, generateSigningKey } from '@kairos/core';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { loadApiConfig } from '../src/config.js';
import { resolveMasterKey } from '@kairos/runtime';

let harness: ApiHarness;

beforeAll(async () => {
  harness = await createApiHarness();
});
afterAll(() => harness.close());

async function createTenant(): Promise<{ accountId: string; api: ApiClient }> {
  const account = await harness.createAccount();
  return { accountId: account.accountId, api: harness.client(account.apiKey) };
}

const storedKey = (accountId: string) => harness.db.prisma.signingKey.findUnique({ where: { accountId } });

/** The raw key appears nowhere in the stored row, and the row decrypts to it under the master key. */
async function expectStoredEncrypted(accountId: string, rawKey: string) {
  const row = (await storedKey(accountId))!;
  expect(JSON.stringify(row)).not.toContain(rawKey);
  expect(row.encryptedKey).toMatch(/^v1\./);
  expect(decryptSecret(row.encryptedKey, harness.masterKey)).toBe(rawKey);
}

describe('signing keys', () => {
  it('are created with the account, stored encrypted', async () => {
    const { accountId, api } = await createTenant();
    const row = (await storedKey(accountId))!;
    const rawKey = decryptSecret(row.encryptedKey, harness.masterKey);
    expect(rawKey).toMatch(/^[0-9a-f]{64}$/);
    expect(row.encryptedKey).not.toContain(rawKey);
    const info = await api.get('/api/signing-keys');
    expect(info.status).toBe(200);
    expect(info.body).toEqual({
      hasKey: true,
      keyPrefix: rawKey.slice(0, 8),
      createdAt: row.createdAt.toISOString(),
      rotatedAt: null,
      previousKeyPrefix: null,
      previousExpiresAt: null,
      revealedAt: null,
    });
  });

  it('answers 409 CONFLICT to create when a key exists', async () => {
    const { accountId, api } = await createTenant();
    const before = await storedKey(accountId);
    const response = await api.post('/api/signing-keys');
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect(await storedKey(accountId)).toEqual(before);
  });

  it('without a key: info is empty, rotate is 404, create answers the raw key once', async () => {
    const { accountId, api } = await createTenant();
    await harness.db.prisma.signingKey.delete({ where: { accountId } });
    expect((await api.get('/api/signing-keys')).body).toEqual({
      hasKey: false,
      keyPrefix: null,
      createdAt: null,
      rotatedAt: null,
      previousKeyPrefix: null,
      previousExpiresAt: null,
      revealedAt: null,
    });
    const rotate = await api.post('/api/signing-keys/rotate');
    expect(rotate.status).toBe(404);
    expect(rotate.body.error.code).toBe('NOT_FOUND');

    const created = await api.post('/api/signing-keys');
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.body).toEqual({
      rawKey: expect.stringMatching(/^[0-9a-f]{64}$/),
      keyPrefix: created.body.rawKey.slice(0, 8),
      createdAt: expect.any(String),
      rotatedAt: null,
      previousKeyPrefix: null,
      previousExpiresAt: null,
    });
    await expectStoredEncrypted(accountId, created.body.rawKey);
    const info = (await api.get('/api/signing-keys')).body;
    expect(info).toEqual({
      hasKey: true,
      keyPrefix: created.body.keyPrefix,
      createdAt: created.body.createdAt,
      rotatedAt: null,
      previousKeyPrefix: null,
      previousExpiresAt: null,
      revealedAt: expect.any(String), // shown by create
    });
    expect(JSON.stringify(info)).not.toContain(created.body.rawKey);
  });

  it('rotate replaces the key at once', async () => {
    const { accountId, api } = await createTenant();
    const oldRawKey = decryptSecret((await storedKey(accountId))!.encryptedKey, harness.masterKey);
    const rotated = await api.post('/api/signing-keys/rotate');
    expect(rotated.status).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    expect(rotated.body.rawKey).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.body.rawKey).not.toBe(oldRawKey);
    expect(rotated.body.keyPrefix).toBe(rotated.body.rawKey.slice(0, 8));
    expect(rotated.body.rotatedAt).toEqual(expect.any(String));
    await expectStoredEncrypted(accountId, rotated.body.rawKey);
    expect(JSON.stringify(await storedKey(accountId))).not.toContain(oldRawKey);

    const info = (await api.get('/api/signing-keys')).body;
    expect(info).toMatchObject({
      hasKey: true,
      keyPrefix: rotated.body.keyPrefix,
      rotatedAt: rotated.body.rotatedAt,
      revealedAt: rotated.body.rotatedAt, // shown by the rotation
    });
    const again = await api.post('/api/signing-keys/rotate');
    expect(again.body.rawKey).not.toBe(rotated.body.rawKey);
  });

  it("never touches another account's key", async () => {
    const alice = await createTenant();
    const bob = await createTenant();
    const bobBefore = await storedKey(bob.accountId);
    await alice.api.post('/api/signing-keys/rotate');
    await harness.db.prisma.signingKey.delete({ where: { accountId: alice.accountId } });
    await alice.api.post('/api/signing-keys');
    expect(await storedKey(bob.accountId)).toEqual(bobBefore);
    expect((await bob.api.get('/api/signing-keys')).body.keyPrefix).toBe(bobBefore!.keyPrefix);
  });
});

describe('reveal (the key of an account created at sign-in, shown once)', () => {
  it('answers the raw key once, then 409 CONFLICT; the info says when it was shown', async () => {
    const { accountId, api } = await createTenant();
    const rawKey = decryptSecret((await storedKey(accountId))!.encryptedKey, harness.masterKey);
    const revealed = await api.post('/api/signing-keys/reveal');
    expect(revealed.status).toBe(200);
    expect(revealed.headers['cache-control']).toBe('no-store');
    expect(revealed.body).toMatchObject({ rawKey, keyPrefix: rawKey.slice(0, 8), rotatedAt: null });
    const revealedAt = (await storedKey(accountId))!.revealedAt!.toISOString();
    expect((await api.get('/api/signing-keys')).body.revealedAt).toBe(revealedAt);

    const again = await api.post('/api/signing-keys/reveal');
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', details: { revealedAt } });
    expect(JSON.stringify(again.body)).not.toContain(rawKey);
    const audited = await harness.db.prisma.auditEvent.count({ where: { accountId, action: 'signing_key.revealed' } });
    expect(audited).toBe(1);
  });

  it('gives the key to exactly one of concurrent callers', async () => {
    const { accountId, api } = await createTenant();
    const rawKey = decryptSecret((await storedKey(accountId))!.encryptedKey, harness.masterKey);
    const answers = await Promise.all(Array.from({ length: 8 }, () => api.post('/api/signing-keys/reveal')));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect(answers.find((answer) => answer.status === 200)!.body.rawKey).toBe(rawKey);
  });

  it('is 409 after create or rotate (they showed the key), 404 without a key', async () => {
    const { accountId, api } = await createTenant();
    await api.post('/api/signing-keys/rotate');
    expect((await api.post('/api/signing-keys/reveal')).status).toBe(409);

    await harness.db.prisma.signingKey.delete({ where: { accountId } });
    const missing = await api.post('/api/signing-keys/reveal');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    expect((await api.post('/api/signing-keys')).status).toBe(201);
    expect((await api.post('/api/signing-keys/reveal')).status).toBe(409);
  });

  it("reveals only the caller's own key", async () => {
    const alice = await createTenant();
    const bob = await createTenant();
    const bobKey = decryptSecret((await storedKey(bob.accountId))!.encryptedKey, harness.masterKey);
    const revealed = await alice.api.post('/api/signing-keys/reveal');
    expect(revealed.body.rawKey).not.toBe(bobKey);
    expect((await storedKey(bob.accountId))!.revealedAt).toBeNull();
  });
});

describe('master key', () => {
  const HEX_KEY = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
  let directory: string;
  const warnings: string[] = [];
  const warn = (message: string) => warnings.push(message);

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'kairos-master-key-'));
    warnings.length = 0;
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('uses KAIROS_MASTER_KEY when set (hex or base64)', () => {
    const devKeyFile = join(directory, '.kairos/master.key');
    const expected = Buffer.from(HEX_KEY, 'hex');
    expect(resolveMasterKey({ value: HEX_KEY, nodeEnv: 'production', devKeyFile, warn })).toEqual(expected);
    expect(resolveMasterKey({ value: expected.toString('base64'), nodeEnv: undefined, devKeyFile, warn })).toEqual(
      expected,
    );
    expect(warnings).toEqual([]);
    expect(() => statSync(devKeyFile)).toThrow();
  });

  it('refuses a malformed key without echoing it', () => {
    const value = generateSigningKey().slice(0, 40);
    expect(() => resolveMasterKey({ value, nodeEnv: undefined, warn })).toThrow(/KAIROS_MASTER_KEY/);
    try {
      resolveMasterKey({ value, nodeEnv: undefined, warn });
    } catch (error) {
      expect((error as Error).message).not.toContain(value);
    }
    expect(() => loadApiConfig({ KAIROS_MASTER_KEY: value } as NodeJS.ProcessEnv)).toThrow(/KAIROS_MASTER_KEY/);
  });

  it('refuses to start in production without a key', () => {
    const devKeyFile = join(directory, '.kairos/master.key');
    expect(() => resolveMasterKey({ value: undefined, nodeEnv: 'production', devKeyFile, warn })).toThrow(
      /KAIROS_MASTER_KEY is required in production/,
    );
    expect(() => statSync(devKeyFile)).toThrow();
  });

  it('elsewhere generates a development key once (mode 0600) and warns', () => {
    const devKeyFile = join(directory, '.kairos/master.key');
    const first = resolveMasterKey({ value: undefined, nodeEnv: 'development', devKeyFile, warn });
    expect(first).toHaveLength(32);
    expect(readFileSync(devKeyFile, 'utf8').trim()).toBe(first.toString('hex'));
    expect(statSync(devKeyFile).mode & 0o777).toBe(0o600);
    expect(resolveMasterKey({ value: '', nodeEnv: undefined, devKeyFile, warn })).toEqual(first);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/development master key/);
  });
});
