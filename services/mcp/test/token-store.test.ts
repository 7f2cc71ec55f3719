import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenStore, type StoredToken } from '@kairos/client/node';

const API = 'http://127.0.0.1:3000';
const NOW = new Date('2026-11-21T12:00:00.000Z');
const token = (overrides: Partial<StoredToken> = {}): StoredToken => ({
  apiUrl: API,
  accessToken: 'kat_secret',
  tokenType: 'Bearer',
  expiresAt: '2027-02-19T12:00:00.000Z',
  obtainedAt: NOW.toISOString(),
  ...overrides,
});

let dir: string;
let warnings: string[];
let store: TokenStore;
let path: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kairos-token-store-'));
  path = join(dir, 'nested', 'kairos', 'mcp-token.json');
  warnings = [];
  store = new TokenStore(path, (warning) => warnings.push(warning));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

test('writes the token user-only (file 0600, new directories 0700) and reads it back', async () => {
  await store.write(token());
  expect((await stat(path)).mode & 0o777).toBe(0o600);
  expect((await stat(join(dir, 'nested', 'kairos'))).mode & 0o777).toBe(0o700);
  expect((await stat(join(dir, 'nested'))).mode & 0o777).toBe(0o700);
  expect(await store.read(API, NOW)).toEqual(token());
  expect(warnings).toEqual([]);
  await store.write(token({ accessToken: 'kat_newer' })); // replaces
  expect(await store.read(API, NOW)).toMatchObject({ accessToken: 'kat_newer' });
});

test.each([
  ['missing', async () => undefined, false],
  ['for another API', () => store.write(token({ apiUrl: 'http://other:3000' })), false],
  ['expired', () => store.write(token({ expiresAt: NOW.toISOString() })), false],
  [
    'about to expire (under a minute)',
    () => store.write(token({ expiresAt: new Date(NOW.getTime() + 30_000).toISOString() })),
    false,
  ],
  ['not JSON', () => store.write(token()).then(() => writeFile(path, 'garbage')), true],
])('a token file %s is not used', async (_name, arrange, warns) => {
  await arrange();
  expect(await store.read(API, NOW)).toBeNull();
  expect(warnings.length > 0).toBe(warns);
});

test('warns when the file is readable by others', async () => {
  await store.write(token());
  await chmod(path, 0o644);
  expect(await store.read(API, NOW)).not.toBeNull();
  expect(warnings).toEqual([expect.stringContaining('chmod 600')]);
});

test('clear removes the file (and is quiet when there is none)', async () => {
  await store.write(token());
  await store.clear();
  await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
  await store.clear();
});
