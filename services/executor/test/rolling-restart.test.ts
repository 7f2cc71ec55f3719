/**
 * A rolling restart of the executor pool under load loses no execution.
 *
 * Real executor processes (the service's main.ts, run from source so the test never depends on a
 * stale build) consume the due queue of an in-process scheduler; endpoints on a 1 s interval call
 * a slow local target. A second executor starts, the first gets SIGTERM while it has executions in
 * flight. Every planned slot (endpoint, scheduledAt) up to the end of the window must be recorded
 * exactly once, and a run id that was delivered twice (handed back at the shutdown deadline) must be
 * one run. Plans are observed on the scheduler's own DueQueue (the one place they are made).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine, type PlannedRun } from '../../../test/engine.js';
import { REDIS_URL } from '../../../test/env.mjs';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ExecutorProcess {
  name: string;
  child: ChildProcess;
  logs: Record<string, unknown>[];
  exit: Promise<number | null>;
  port(): Promise<number>;
  gauge(name: string): Promise<number>;
}

/** `node services/executor/src/main.ts` as its own process, on the harness's database and prefix. */
function spawnExecutor(harness: ApiHarness, name: string, env: Record<string, string> = {}): ExecutorProcess {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'services/executor/src/main.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: harness.database.url,
      REDIS_URL,
      KAIROS_QUEUE_PREFIX: harness.queuePrefix,
      KAIROS_ALLOWED_TARGET_CIDRS: '127.0.0.0/8',
      KAIROS_MASTER_KEY: harness.masterKey.toString('hex'),
      EXECUTOR_HEALTH_PORT: '0',
      EXECUTOR_CONCURRENCY: '16',
      LOG_LEVEL: 'info',
      ...env,
    },
  });
  const logs: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      logs.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      stderr.push(line);
    }
  });
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = () =>
    waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}: ${stderr.join('\n')}`);
        return logs.find((entry) => entry.message === 'health server listening')?.port as number | undefined;
      },
      60_000,
      `${name}'s health port`,
    );
  return {
    name,
    child,
    logs,
    exit,
    port,
    async gauge(metric) {
      const text = await (await fetch(`http://127.0.0.1:${await port()}/metrics`)).text();
      const match = new RegExp(`^${metric}(?:\\{[^}]*\\})? (\\d+(?:\\.\\d+)?)$`, 'm').exec(text);
      return match ? Number(match[1]) : Number.NaN;
    },
  };
}

async function waitUntilReady(executor: ExecutorProcess): Promise<void> {
  const port = await executor.port();
  await waitFor(
    async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200,
    60_000,
    `${executor.name} ready`,
  );
}

/** SIGTERM as soon as the process has executions in flight (read from its own /metrics). */
async function terminateUnderLoad(executor: ExecutorProcess): Promise<void> {
  await waitFor(
    async () => (await executor.gauge('kairos_executor_concurrency_in_use')) > 0,
    20_000,
    `${executor.name} with executions in flight`,
  );
  executor.child.kill('SIGTERM');
}

interface Scenario {
  harness: ApiHarness;
  engine: Engine;
  target: TestServer;
  plans: PlannedRun[];
  endpointIds: string[];
  executors: ExecutorProcess[];
}

async function startScenario(endpoints: number, targetDelayMs: number): Promise<Scenario> {
  const harness = await createApiHarness();
  const engine = await startEngine(harness, { withoutExecutor: true });
  const plans: PlannedRun[] = [];
  const dueQueue = engine.scheduler.dueQueue;
  const add = dueQueue.add.bind(dueQueue);
  const addMany = dueQueue.addMany.bind(dueQueue);
  dueQueue.add = (planned) => {
    plans.push(planned);
    return add(planned);
  };
  dueQueue.addMany = (planned) => {
    plans.push(...planned);
    return addMany(planned);
  };
  const target = await startTestServer((_req, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }, targetDelayMs);
  });
  const account = await harness.createAccount();
  const api = harness.client(account.apiKey);
  const job = (await api.post('/api/jobs', { name: 'rolling restart' })).body;
  const endpointIds: string[] = [];
  for (let i = 0; i < endpoints; i += 1) {
    const created = await api.post(`/api/jobs/${job.id}/endpoints`, {
      name: `endpoint ${i}`,
      url: `${target.origin}/e${i}`,
      method: 'GET',
      baselineIntervalMs: 1000,
      timeoutMs: 10_000,
    });
    expect(created.status).toBe(201);
    endpointIds.push(created.body.id);
  }
  return { harness, engine, target, plans, endpointIds, executors: [] };
}

async function stopScenario(scenario: Scenario): Promise<void> {
  for (const executor of scenario.executors) {
    if (executor.child.exitCode === null && executor.child.signalCode === null) executor.child.kill('SIGKILL');
    await executor.exit;
  }
  await scenario.engine.close();
  await scenario.target.close();
  await scenario.harness.close();
}

/**
 * Waits until every slot planned up to `windowEndMs` is recorded, then checks exactly-once:
 * one run per planned slot, every run a planned one. Returns deliveries per run id.
 */
async function expectEverySlotRecordedOnce(
  scenario: Scenario,
  windowEndMs: number,
  minSlotsPerEndpoint: number,
): Promise<Map<string, number>> {
  const slotKey = (endpointId: string, scheduledAt: Date) => `${endpointId}@${scheduledAt.toISOString()}`;
  const planned = () => scenario.plans.filter((plan) => plan.scheduledAt.getTime() <= windowEndMs);
  const runsNow = () =>
    scenario.harness.db.prisma.run.findMany({
      where: { endpointId: { in: scenario.endpointIds } },
      select: { id: true, endpointId: true, scheduledAt: true },
    });
  const runs = await waitFor(
    async () => {
      const found = await runsNow();
      const recorded = new Set(found.map((run) => slotKey(run.endpointId, run.scheduledAt)));
      return planned().every((plan) => recorded.has(slotKey(plan.endpointId, plan.scheduledAt))) ? found : null;
    },
    30_000,
    'every planned slot in the window to be recorded',
  );
  const slots = new Set(planned().map((plan) => slotKey(plan.endpointId, plan.scheduledAt)));
  expect(slots.size).toBeGreaterThanOrEqual(scenario.endpointIds.length * minSlotsPerEndpoint);

  const runsPerSlot = new Map<string, number>();
  for (const run of runs) {
    const key = slotKey(run.endpointId, run.scheduledAt);
    runsPerSlot.set(key, (runsPerSlot.get(key) ?? 0) + 1);
  }
  const twice = [...runsPerSlot].filter(([, count]) => count > 1);
  expect(twice).toEqual([]);
  const plannedRunIds = new Set(scenario.plans.map((plan) => plan.runId));
  expect(runs.filter((run) => !plannedRunIds.has(run.id))).toEqual([]);

  const deliveries = new Map<string, number>();
  for (const request of scenario.target.requests) {
    const runId = request.headers['x-service-run-id'] as string;
    deliveries.set(runId, (deliveries.get(runId) ?? 0) + 1);
  }
  for (const run of runs) expect(deliveries.get(run.id) ?? 0).toBeGreaterThanOrEqual(1);
  return deliveries;
}

describe('executor rolling restart under load', () => {
  it('drains in-flight executions on SIGTERM while a new executor takes over: every slot once', async () => {
    const scenario = await startScenario(12, 500);
    try {
      const first = spawnExecutor(scenario.harness, 'executor-1', { EXECUTOR_SHUTDOWN_TIMEOUT_MS: '15000' });
      scenario.executors.push(first);
      await waitUntilReady(first);
      await waitFor(
        async () => (await first.gauge('kairos_runs_total')) >= scenario.endpointIds.length,
        30_000,
        'executor-1 recording runs',
      );
      const second = spawnExecutor(scenario.harness, 'executor-2');
      scenario.executors.push(second);
      await waitUntilReady(second);

      await terminateUnderLoad(first);
      expect(await first.exit).toBe(0);
      const shutdown = first.logs.find((entry) => entry.message === 'shutting down: finishing in-flight executions');
      expect(shutdown?.inFlight).toBeGreaterThan(0);
      expect(first.logs.find((entry) => entry.message === 'executor stopped')).toMatchObject({ released: 0 });

      const windowEndMs = Date.now() + 2500;
      await sleep(2500);
      const deliveries = await expectEverySlotRecordedOnce(scenario, windowEndMs, 4);
      // Drained, not handed back: no execution was sent twice.
      expect([...deliveries.values()].filter((count) => count > 1)).toEqual([]);
      expect(await second.gauge('kairos_runs_total')).toBeGreaterThan(0);
    } finally {
      await stopScenario(scenario);
    }
  }, 180_000);

  it('hands in-flight executions back at the shutdown deadline: retried under the same run id, recorded once', async () => {
    const scenario = await startScenario(6, 2500);
    try {
      const survivor = spawnExecutor(scenario.harness, 'executor-survivor');
      const leaving = spawnExecutor(scenario.harness, 'executor-leaving', { EXECUTOR_SHUTDOWN_TIMEOUT_MS: '200' });
      scenario.executors.push(survivor, leaving);
      await Promise.all([waitUntilReady(survivor), waitUntilReady(leaving)]);

      await terminateUnderLoad(leaving);
      expect(await leaving.exit).toBe(0);
      const handedBack = leaving.logs
        .filter((entry) => entry.message === 'shutdown deadline: execution handed back')
        .map((entry) => entry.runId as string);
      expect(handedBack.length).toBeGreaterThan(0);
      expect(leaving.logs.find((entry) => entry.message === 'executor stopped')).toMatchObject({
        released: handedBack.length,
      });

      const windowEndMs = Date.now() + 3000;
      await sleep(3000);
      const deliveries = await expectEverySlotRecordedOnce(scenario, windowEndMs, 2);
      for (const runId of handedBack) {
        // Sent by the leaving executor, then again by the survivor: same X-Service-Run-Id, one run.
        expect(deliveries.get(runId)).toBe(2);
        expect(await scenario.harness.db.prisma.run.count({ where: { id: runId } })).toBe(1);
      }
    } finally {
      await stopScenario(scenario);
    }
  }, 180_000);
});
