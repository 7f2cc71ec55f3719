/**
 * A real api process (services/api/src/main.ts, its own database clone, a private queue prefix on the
 * machine's Redis) answers 100,000 requests that each carry a distinct wrong credential (API keys and
 * bearer tokens, alternately), and its heap after a full garbage collection grows by less than
 * HEAP_GROWTH_BOUND: no credential a process refuses stays in its memory, and the caches it keeps are
 * bounded (docs/operations/memory.md). The heap is read through the inspector the api is started with
 * (127.0.0.1, a free port): HeapProfiler.collectGarbage, then Runtime.getHeapUsage.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../../test/db.js';
import { REDIS_URL } from '../../../test/env.mjs';
import { answers200, exitOf, freePort, waitFor } from '../../../test/fault/processes.js';

const ROOT = join(import.meta.dirname, '../../..');
const REQUESTS = 100_000;
const CONCURRENCY = 32;
/** 100,000 hashes of 64 characters held in a Map would take ≥ 12 MB alone. */
const HEAP_GROWTH_BOUND = 8 * 1024 * 1024;
/**
 * The whole load must finish within this: each request is a credential lookup in PostgreSQL and a
 * rate-limit script in Redis, 80–140 requests/s on the 2-core host shared with six other test runs.
 */
const LOAD_DEADLINE_MS = 1_500_000;

let database: TestDatabase;
let api: ChildProcess | undefined;
let stderr = '';

afterAll(async () => {
  if (api && api.exitCode === null) {
    api.kill('SIGTERM');
    await exitOf(api, 20_000);
  }
  await database?.drop();
});

/** The api's heap in use after two full collections, read by a separate node process over the inspector. */
function heapAfterGc(inspectorUrl: string): number {
  const script = `
    const ws = new WebSocket(process.argv[1]);
    let id = 0;
    const pending = new Map();
    const call = (method) => new Promise((resolve) => { pending.set(++id, resolve); ws.send(JSON.stringify({ id, method })); });
    ws.onmessage = (event) => { const message = JSON.parse(event.data); pending.get(message.id)?.(message.result); };
    ws.onopen = async () => {
      await call('HeapProfiler.enable');
      await call('HeapProfiler.collectGarbage');
      await call('HeapProfiler.collectGarbage');
      const usage = await call('Runtime.getHeapUsage');
      console.log(usage.usedSize);
      ws.close();
    };
    setTimeout(() => process.exit(2), 30000).unref();
  `;
  const result = spawnSync(process.execPath, ['-e', script, inspectorUrl], { encoding: 'utf8', timeout: 40_000 });
  const used = Number(result.stdout.trim());
  if (!(used > 0)) throw new Error(`could not read the api's heap: ${result.stderr}`);
  return used;
}

/** Sends `count` requests with distinct wrong credentials, CONCURRENCY at a time; counts statuses. */
async function badCredentials(port: number, count: number, from: number, deadline: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const statuses = new Map<number, number>();
  let next = 0;
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const secret = `${i.toString(36)}-${randomBytes(12).toString('hex')}`;
      const headers = i % 2 === 0 ? { 'x-api-key': `kairos_${secret}` } : { authorization: `Bearer kat_${secret}` };
      const req = http.get({ host: '127.0.0.1', port, path: '/api/jobs', agent, headers }, (res) => {
        statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
        res.resume();
        res.on('end', resolve);
      });
      req.setTimeout(10_000, () => req.destroy(new Error('request timed out')));
      req.on('error', reject);
    });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count && Date.now() < deadline) await one(from + next++);
    }),
  );
  agent.destroy();
  return { sent: next, statuses };
}

it('100,000 distinct wrong credentials leave the api heap within its bound', async () => {
  database = await createTestDatabase();
  const port = await freePort();
  api = spawn(
    process.execPath,
    ['--inspect=127.0.0.1:0', '--conditions=source', '--import', 'tsx', join(ROOT, 'services/api/src/main.ts')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        DATABASE_URL: database.url,
        REDIS_URL,
        KAIROS_QUEUE_PREFIX: `{kairos-memory-${randomBytes(4).toString('hex')}}`,
        KAIROS_MASTER_KEY: 'e'.repeat(64),
        KAIROS_WEB_DIR: '',
        LOG_LEVEL: 'error',
        HOST: '127.0.0.1',
        PORT: String(port),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  api.stderr!.on('data', (data: Buffer) => (stderr += data.toString()));
  const inspectorUrl = await waitFor(
    'the inspector URL',
    () => /ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/.exec(stderr)?.[0],
    60_000,
  );
  await waitFor('a ready api', () => answers200(port, '/readyz'), 120_000, 500).catch((error: Error) => {
    throw new Error(`${error.message}\n--- api stderr ---\n${stderr.slice(-3000)}`);
  });

  const deadline = Date.now() + LOAD_DEADLINE_MS;
  // Warm-up: every code path (401, 429, the limiter's scripts) has run once before the baseline.
  const warm = await badCredentials(port, 2_000, 0, deadline);
  expect(warm.sent).toBe(2_000);
  const before = heapAfterGc(inspectorUrl);

  const load = await badCredentials(port, REQUESTS, 2_000, deadline);
  expect(load.sent).toBe(REQUESTS);
  // Every one refused: 401 for the credential, or 429 once the address's budget is spent.
  expect([...load.statuses.keys()].every((status) => status === 401 || status === 429)).toBe(true);

  const after = heapAfterGc(inspectorUrl);
  const growth = after - before;
  console.log(
    `api heap after GC: ${(before / 1048576).toFixed(1)} MB before, ${(after / 1048576).toFixed(1)} MB after ` +
      `${REQUESTS} wrong credentials (${[...load.statuses].map(([s, n]) => `${n}× ${s}`).join(', ')})`,
  );
  expect(growth).toBeLessThan(HEAP_GROWTH_BOUND);
}, 1_620_000);
