/**
 * `pnpm start` on a machine without PostgreSQL or Redis: with KAIROS_STORES=embedded and no
 * DATABASE_URL / REDIS_URL, scripts/start.mjs starts private stores from the machine's binaries on
 * free ports with their data under KAIROS_HOME (a scratch directory here; .kairos by default), never
 * touching the machine's own PostgreSQL and Redis. The operator CLI finds them (stores.json), a run
 * against a 127.0.0.1 test server is recorded, a store killed with SIGKILL is restarted by the
 * supervisor, SIGTERM stops everything (stores included), and a second start finds the run again. KAIROS_STORES=external refuses a store that does not answer.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../test-server.js';
import { answers200, exitOf, freePorts, isAlive, killAll, waitFor } from './processes.js';

const ROOT = join(import.meta.dirname, '../..');
const MASTER_KEY = 'd'.repeat(64);

let home: string;
let target: TestServer;
let start: ChildProcess | undefined;
let output = '';
const seenPids = new Set<number>();

/** The environment of a machine where no store is configured. */
function bareEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return { ...env, ...extra };
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'kairos-home-'));
  // Under root, PostgreSQL runs as the postgres account: it must be able to reach the data.
  chmodSync(home, 0o755);
  target = await startTestServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
});

afterAll(async () => {
  if (start?.pid) killAll([start.pid]);
  killAll(seenPids);
  await target?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  state: { pid: number; postgres: { url: string; data: string }; redis: { url: string; data: string } };
}

async function startService(ports: { api: number; scheduler: number; executor: number; planner: number }) {
  output = '';
  const child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: bareEnv({
      KAIROS_STORES: 'embedded',
      KAIROS_HOME: home,
      KAIROS_START_FROM_SOURCE: 'true',
      KAIROS_MASTER_KEY: MASTER_KEY,
      KAIROS_ALLOW_PRIVATE_TARGETS: 'true',
      KAIROS_WEB_DIR: '',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(ports.api),
      SCHEDULER_HEALTH_PORT: String(ports.scheduler),
      EXECUTOR_HEALTH_PORT: String(ports.executor),
      PLANNER_HEALTH_PORT: String(ports.planner),
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  start = child;
  child.stdout!.on('data', (data: Buffer) => (output += data.toString()));
  child.stderr!.on('data', (data: Buffer) => (output += data.toString()));
  // Four services compiled by tsx on two shared cores took up to ~90 s beside other suites: 180 s.
  await waitFor(
    'embedded stores and a ready api and executor',
    async () =>
      existsSync(join(home, 'stores.json')) &&
      (await answers200(ports.api, '/readyz')) &&
      (await answers200(ports.executor, '/readyz')),
    180_000,
    500,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n--- start.mjs output ---\n${output.slice(-4000)}`);
  });
  const state = JSON.parse(readFileSync(join(home, 'stores.json'), 'utf8')) as Started['state'];
  for (const pid of childrenOf(child.pid!)) seenPids.add(pid);
  return { child, state };
}

/** Direct children of a process (the supervisors' stores and services). */
function childrenOf(parentPid: number): number[] {
  const listed = spawnSync('ps', ['-o', 'pid=', '--ppid', String(parentPid)], { encoding: 'utf8' }).stdout;
  return listed
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((pid) => pid > 0);
}

async function stopService(child: ChildProcess, storePids: number[]) {
  child.kill('SIGTERM');
  expect(await exitOf(child, 90_000)).toBe(0);
  await waitFor('the embedded stores to stop', () => storePids.every((pid) => !isAlive(pid)), 30_000);
  expect(existsSync(join(home, 'stores.json'))).toBe(false);
}

/** `pnpm kairos …` as an operator runs it: no DATABASE_URL, only the checkout's running service. */
async function kairosCli(...args: string[]) {
  // Asynchronous: a blocked event loop would miss the api closing idle keep-alive connections.
  const { stdout } = await promisify(execFile)('pnpm', ['--silent', 'kairos', ...args], {
    cwd: ROOT,
    env: bareEnv({ KAIROS_HOME: home, KAIROS_MASTER_KEY: MASTER_KEY }),
    encoding: 'utf8',
    timeout: 90_000,
  });
  return JSON.parse(stdout) as Record<string, string>;
}

async function api(port: number, apiKey: string, path: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

it('runs on embedded stores, records a run, stops them with the service and keeps the data', async () => {
  const [api1, scheduler, executor, planner] = (await freePorts(4)) as [number, number, number, number];
  const ports = { api: api1, scheduler, executor, planner };

  const first = await startService(ports);
  expect(output).toContain('PostgreSQL embedded at postgresql://postgres@127.0.0.1:');
  expect(output).toContain('Redis embedded at redis://127.0.0.1:');
  expect(first.state.postgres.url).not.toContain(':5432/');
  expect(first.state.redis.url).not.toMatch(/:6379$/);
  expect(first.state.postgres.data).toBe(join(home, 'data/postgres'));
  const storePids = childrenOf(first.child.pid!).filter((pid) =>
    /postgres|redis-server/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8')),
  );
  expect(storePids).toHaveLength(2);

  // The operator CLI, with no DATABASE_URL, finds the running service's embedded PostgreSQL.
  const account = await kairosCli(
    'accounts',
    'create',
    '--email',
    'embedded@example.test',
    '--tier',
    'enterprise',
    '--json',
  );
  const apiKey = account.apiKey!;
  const job = (await api(ports.api, apiKey, '/api/jobs', { name: 'Embedded' })).body as { id: string };
  const created = await api(ports.api, apiKey, `/api/jobs/${job.id}/endpoints`, {
    name: 'Ping',
    url: `${target.origin}/ping`,
    method: 'GET',
    baselineIntervalMs: 2_000,
  });
  expect(created.status).toBe(201);
  const endpointId = (created.body as { id: string }).id;
  const runsOf = async () =>
    (await api(ports.api, apiKey, `/api/endpoints/${endpointId}/runs`)).body as { id: string; status: string }[];
  const recorded = await waitFor(
    'a run recorded against the test server',
    async () => {
      const runs = await runsOf();
      return runs.some((run) => run.status === 'success') && runs;
    },
    90_000,
    1000,
  );
  expect(target.requests.some((request) => request.url === '/ping')).toBe(true);

  // A store that crashes is restarted by the supervisor, like a service, and the api is ready again.
  const storeCommand = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  const redisPid = storePids.find((pid) => storeCommand(pid).includes('redis-server'))!;
  process.kill(redisPid, 'SIGKILL');
  const newRedisPid = await waitFor(
    'a new embedded redis-server',
    () =>
      childrenOf(first.child.pid!).find(
        (pid) => pid !== redisPid && isAlive(pid) && storeCommand(pid).includes('redis-server'),
      ),
    30_000,
  );
  await waitFor('a ready api after the store came back', () => answers200(ports.api, '/readyz'), 60_000, 500);
  expect(output).toContain('kairos: redis exited unexpectedly');
  seenPids.add(newRedisPid);
  storePids.splice(storePids.indexOf(redisPid), 1, newRedisPid);

  await stopService(first.child, storePids);

  const second = await startService(ports);
  expect(second.state.postgres.data).toBe(first.state.postgres.data);
  const after = await runsOf();
  const successful = recorded.find((run) => run.status === 'success')!;
  expect(after.map((run) => run.id)).toContain(successful.id);
  await stopService(second.child, childrenOf(second.child.pid!));
}, 600_000);

it('KAIROS_STORES=external refuses a store that does not answer, naming its URL (exit 78)', async () => {
  const [closed] = await freePorts(1);
  const refused = spawnSync(process.execPath, [join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: bareEnv({
      KAIROS_STORES: 'external',
      KAIROS_HOME: home,
      DATABASE_URL: `postgresql://kairos:secret@127.0.0.1:${closed}/kairos`,
    }),
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(refused.status).toBe(78);
  expect(refused.stderr).toContain(`PostgreSQL does not answer at postgresql://kairos:***@127.0.0.1:${closed}/kairos`);
  expect(refused.stderr).not.toContain('secret');

  const unknown = spawnSync(process.execPath, [join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: bareEnv({ KAIROS_STORES: 'sometimes', KAIROS_HOME: home }),
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(unknown.status).toBe(78);
  expect(unknown.stderr).toContain('KAIROS_STORES must be one of auto, embedded, external');
});
