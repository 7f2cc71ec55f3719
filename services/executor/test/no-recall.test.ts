/**
 * A completed call is never turned into a new call by a retry. PostgreSQL refuses run
 * rows with a connection-class error (SQLSTATE 08006, what an outage looks like to the recorder)
 * through a trigger, while the endpoint reads keep working; the executor stashes the outcome, and
 * the next delivery of that run (a BullMQ retry, or the reconcile sweep's re-add once the job is
 * gone) records it without calling the endpoint again.
 */
import { QUEUES, dueJobId } from '@kairos/queue';
import { Queue } from 'bullmq';
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';

let harness: ApiHarness;
let api: ApiClient;
let engine: Engine;
let target: TestServer;
let due: Queue;
const calls = new Map<string, number>();

beforeAll(async () => {
  harness = await createApiHarness();
  api = harness.client((await harness.createAccount()).apiKey);
  target = await startTestServer((req, res) => {
    calls.set(req.url!, (calls.get(req.url!) ?? 0) + 1);
    res.end(req.url === '/nul' ? 'a NUL \u0000 in the body' : '{"ok":true}');
  });
  due = new Queue(QUEUES.due, { connection: harness.redis, prefix: harness.queuePrefix });
  await harness.db.pool.query(`
    CREATE FUNCTION refuse_runs() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'simulated outage' USING ERRCODE = '08006'; END $$`);
  engine = await startEngine(harness);
});
afterAll(async () => {
  await engine.close();
  await due.close();
  await target.close();
  await harness.close();
});

/**
 * Sets or removes the refusing trigger. Its lock on runs can meet a record statement in flight the
 * other way round; PostgreSQL then cancels one side (deadlock_detected), and if that is this
 * statement it is tried again (at most five times).
 */
async function refuseRuns(on: boolean): Promise<void> {
  const statement = on
    ? 'CREATE TRIGGER refuse_runs BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION refuse_runs()'
    : 'DROP TRIGGER refuse_runs ON runs';
  for (let attempt = 1; ; attempt += 1) {
    try {
      await harness.db.pool.query(statement);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '40P01' || attempt === 5) throw error;
    }
  }
}

/** An hourly endpoint, run at once after creation; returns its id and the stash key of that first run. */
async function createEndpoint(path: string) {
  const job = (await api.post('/api/jobs', { name: path })).body;
  const endpoint = (
    await api.post(`/api/jobs/${job.id}/endpoints`, {
      name: path,
      url: `${target.origin}${path}`,
      method: 'GET',
      baselineIntervalMs: 3_600_000,
    })
  ).body;
  return endpoint.id as string;
}

const stashKeys = () => harness.redis.keys(`${harness.queuePrefix}:outcome:*`);
const runsOf = (endpointId: string) => harness.db.prisma.run.findMany({ where: { endpointId } });

it('a BullMQ retry records the stashed outcome instead of calling the endpoint again', async () => {
  await refuseRuns(true);
  const endpointId = await createEndpoint('/retry');
  await waitFor(async () => (await stashKeys()).length === 1, 5000, 'the outcome stashed');
  const row = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
  // The second delivery (1 s backoff) replays the stash and fails again: still one call.
  await waitFor(
    async () => ((await due.getJob(dueJobId(endpointId, row.scheduleVersion)))?.attemptsStarted ?? 0) >= 2,
    5000,
    'a retry',
  );
  expect(calls.get('/retry')).toBe(1);
  expect(await harness.redis.exists(`${harness.queuePrefix}:running:${endpointId}`)).toBe(0);

  await refuseRuns(false);
  const [run] = await waitFor(
    async () => {
      const runs = await runsOf(endpointId);
      return runs.length > 0 ? runs : null;
    },
    8000,
    'the run recorded',
  );
  expect(run).toMatchObject({
    id: row.nextRunId,
    status: 'success',
    statusCode: 200,
    attempt: 1,
    responseBody: { ok: true },
  });
  expect(calls.get('/retry')).toBe(1);
  await waitFor(async () => (await stashKeys()).length === 0, 3000, 'the stash deleted');
  // Free: only the recorded run's mark (running-lock.ts).
  expect(await harness.redis.get(`${harness.queuePrefix}:running:${endpointId}`)).toBe(`${row.nextRunId}@recorded`);
});

it('once the job is gone (attempts spent), the reconcile re-add under the same run id replays the outcome', async () => {
  await refuseRuns(true);
  const endpointId = await createEndpoint('/reconcile');
  await waitFor(async () => (await stashKeys()).length === 1, 5000, 'the outcome stashed');
  const row = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
  // What `removeOnFail` does after the fifth attempt, without waiting 15 s for it.
  const job = await waitFor(
    async () => {
      const found = await due.getJob(dueJobId(endpointId, row.scheduleVersion));
      return found && (await found.getState()) === 'delayed' ? found : null;
    },
    5000,
    'the job waiting for its retry',
  );
  await job.remove();
  await refuseRuns(false);

  expect(await engine.scheduler.reconciler.runIfLeader()).toMatchObject({ restored: 1 });
  const [run] = await waitFor(
    async () => {
      const runs = await runsOf(endpointId);
      return runs.length > 0 ? runs : null;
    },
    5000,
    'the run recorded',
  );
  expect(run).toMatchObject({ id: row.nextRunId, status: 'success', attempt: 1 });
  expect(calls.get('/reconcile')).toBe(1);
});

it('an hourly endpoint answering a body the database may refuse (U+0000) is called once and its run recorded', async () => {
  // The issue as seen on main: 20 calls in 85 s and no run. Whatever the HTTP layer makes of the
  // body (stored cleaned, or refused and recorded as record_error), the slot is one call, one run.
  const endpointId = await createEndpoint('/nul');
  await waitFor(async () => (await runsOf(endpointId)).length === 1, 5000, 'the run recorded');
  const row = await waitFor(
    async () => {
      const endpoint = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
      return endpoint.nextRunAt && endpoint.nextRunAt.getTime() > Date.now() + 3_000_000 ? endpoint : null;
    },
    3000,
    'the next run an hour later',
  );
  await new Promise((resolve) => setTimeout(resolve, 2500)); // past the first two retry backoffs (1 s, 2 s)
  expect(calls.get('/nul')).toBe(1);
  expect(await runsOf(endpointId)).toHaveLength(1);
  expect(row.lastRunAt).not.toBeNull();
});
