/**
 * `kill -9` of one service under `pnpm start` used to stop every service (the api too)
 * and nothing came back. Here the real scripts/start.mjs runs the four services against a cloned
 * test database and the machine's Redis (own queue prefix, free ports); the executor is killed with
 * SIGKILL, and the api must keep serving while a new executor comes up. SIGTERM then stops the
 * whole gracefully (exit 0, no child left).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../db.js';
import { REDIS_URL } from '../env.mjs';
import { answers200, exitOf, freePorts, isAlive, killAll, serviceChildren, waitFor } from './processes.js';

const ROOT = join(import.meta.dirname, '../..');
const SERVICES = ['api', 'scheduler', 'executor', 'planner'];

let database: TestDatabase;
let start: ChildProcess | undefined;
let output = '';
const seenPids = new Set<number>();

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  if (start?.pid) killAll([start.pid]);
  killAll(seenPids);
  await database?.drop();
});

it('keeps the other services running and restarts a service killed with SIGKILL', async () => {
  const [api, scheduler, executor, planner] = (await freePorts(4)) as [number, number, number, number];
  const ports = { api, scheduler, executor, planner };
  start = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      KAIROS_START_FROM_SOURCE: 'true',
      DATABASE_URL: database.url,
      REDIS_URL,
      KAIROS_QUEUE_PREFIX: `{kairos-start-${randomBytes(4).toString('hex')}}`,
      KAIROS_MASTER_KEY: 'c'.repeat(64),
      KAIROS_WEB_DIR: '',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(ports.api),
      SCHEDULER_HEALTH_PORT: String(ports.scheduler),
      EXECUTOR_HEALTH_PORT: String(ports.executor),
      PLANNER_HEALTH_PORT: String(ports.planner),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  start.stdout!.on('data', (data: Buffer) => (output += data.toString()));
  start.stderr!.on('data', (data: Buffer) => (output += data.toString()));
  const startPid = start.pid!;

  // Four services compiled by tsx on two shared cores took up to ~90 s beside the fault suite: 150 s.
  const before = await waitFor(
    'all four services and a ready api and executor',
    async () => {
      const children = serviceChildren(startPid);
      for (const pid of children.values()) seenPids.add(pid);
      if (children.size < SERVICES.length) return undefined;
      return (await answers200(ports.api, '/readyz')) && (await answers200(ports.executor, '/readyz')) && children;
    },
    150_000,
    500,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n--- start.mjs output ---\n${output.slice(-4000)}`);
  });

  process.kill(before.get('executor')!, 'SIGKILL');

  const after = await waitFor(
    'a new executor process that is ready',
    async () => {
      const children = serviceChildren(startPid);
      for (const pid of children.values()) seenPids.add(pid);
      const executor = children.get('executor');
      if (!executor || executor === before.get('executor')) return undefined;
      return (await answers200(ports.executor, '/readyz')) && children;
    },
    60_000,
    500,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n--- start.mjs output ---\n${output.slice(-4000)}`);
  });
  // The others were never restarted: same processes, still answering.
  expect(isAlive(startPid)).toBe(true);
  for (const service of ['api', 'scheduler', 'planner']) expect(after.get(service)).toBe(before.get(service));
  expect(await answers200(ports.api, '/healthz')).toBe(true);
  expect(output).toMatch(/executor exited unexpectedly \(signal SIGKILL\); restarting in 1 s/);

  start.kill('SIGTERM');
  expect(await exitOf(start, 60_000)).toBe(0);
  for (const pid of after.values()) expect(isAlive(pid)).toBe(false);
}, 300_000);
