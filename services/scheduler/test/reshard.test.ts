/**
 * Changing KAIROS_QUEUE_SHARDS on a running installation (packages/queue/src/shards.ts,
 * docs/operations/scaling.md "Queue shards and Redis Cluster"): 1 → 3 then 3 → 2, as a rolling deploy does
 * it (the new engine starts with KAIROS_QUEUE_SHARDS_PREVIOUS, the old one stops after). Checks: no
 * run id called twice, no slot recorded twice, no endpoint lost (each keeps running and its due job
 * ends on its new shard), and the overlap policy across the move: a slow endpoint still executing
 * on the old shard is not called again from its new shard (the due job's lockShard).
 */
import { metrics } from '@kairos/runtime';
import { dueJobId, shardOf } from '@kairos/queue';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';

const FAST = 8;
/** The slow endpoint's call: long enough that a run planned mid-call falls due while it still runs. */
const SLOW_MS = 3000;

let harness: ApiHarness;
let api: ApiClient;
let target: TestServer;
const engines: Engine[] = [];
const endpointIds: string[] = [];
/** Every endpoint created, the archived slow candidates too (they may be called before their archive). */
const createdIds: string[] = [];
let slowId = '';
/** Calls in flight and the most at once, per slow endpoint's path (the overlap policy is per endpoint). */
const slowInFlight = new Map<string, number>();
const slowMaxInFlight = new Map<string, number>();
let slowPath = '';
/** When each call arrived (ms since the test began) and where, for the failure message. */
const testStart = Date.now();
const arrivals: string[] = [];

beforeAll(async () => {
  harness = await createApiHarness();
  target = await startTestServer((req, res) => {
    arrivals.push(`${String(req.headers['x-service-run-id'])} ${req.url} +${Date.now() - testStart} ms`);
    const reply = () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    };
    const path = req.url ?? '';
    if (!path.startsWith('/slow')) return reply();
    const inFlight = (slowInFlight.get(path) ?? 0) + 1;
    slowInFlight.set(path, inFlight);
    slowMaxInFlight.set(path, Math.max(slowMaxInFlight.get(path) ?? 0, inFlight));
    setTimeout(() => {
      slowInFlight.set(path, slowInFlight.get(path)! - 1);
      reply();
    }, SLOW_MS);
  });
  api = harness.client((await harness.createAccount()).apiKey);
});

afterAll(async () => {
  for (const engine of engines) await engine.close().catch(() => undefined);
  await target.close();
  await harness.close();
});

const start = async (shards: { count: number; previous?: number }) => {
  const engine = await startEngine(harness, { shards, dirtyGraceMs: 1000 });
  engines.push(engine);
  return engine;
};

const overlapSkips = async () =>
  (await metrics.executionsSkipped.get()).values.find((value) => value.labels.reason === 'overlap')?.value ?? 0;

/** Every endpoint has `count` runs planned after `since` (none lost by the reshard). */
const everyEndpointRuns = (since: Date, count: number, what: string) =>
  waitFor(
    async () => {
      const runs = await harness.db.prisma.run.findMany({
        where: { endpointId: { in: endpointIds }, scheduledAt: { gt: since } },
      });
      return endpointIds.every((id) => runs.filter((run) => run.endpointId === id).length >= count) ? runs : null;
    },
    30_000,
    what,
  );

/** Every endpoint's current due job sits on its shard under `count` shards (after the move). */
async function expectDueJobsOnShards(engine: Engine, count: number): Promise<void> {
  await waitFor(
    async () => {
      const rows = await harness.db.prisma.endpoint.findMany({ where: { id: { in: endpointIds } } });
      for (const row of rows) {
        const job = await engine.scheduler.dueQueue.shards[shardOf(row.id, count)]!.getJob(
          dueJobId(row.id, row.scheduleVersion),
        );
        // Absent for a moment while it executes and is replanned: a later poll sees the next one.
        if (!job) return false;
      }
      return true;
    },
    15_000,
    `every due job on its shard among ${count}`,
  );
}

function expectNothingTwice(runs: { id: string; endpointId: string; scheduledAt: Date }[]): void {
  const calls = new Map<string, number>();
  for (const request of target.requests) {
    const runId = String(request.headers['x-service-run-id']);
    calls.set(runId, (calls.get(runId) ?? 0) + 1);
  }
  const twice = [...calls.entries()].filter(([, count]) => count > 1).map(([runId]) => runId);
  expect(arrivals.filter((arrival) => twice.some((runId) => arrival.startsWith(runId)))).toEqual([]);
  const slots = new Set(runs.map((run) => `${run.endpointId}@${run.scheduledAt.toISOString()}`));
  expect(slots.size).toBe(runs.length);
  // Per endpoint: an archived candidate's last call may overlap the chosen one's (other endpoints).
  expect([...slowMaxInFlight.values()].every((most) => most === 1)).toBe(true);
  expect(slowMaxInFlight.get(slowPath)).toBe(1);
}

it('moves every endpoint 1 → 3 → 2 shards without calling a run twice, losing one, or overlapping', async () => {
  const old = await start({ count: 1 });
  const job = (await api.post('/api/jobs', { name: 'reshard' })).body as { id: string };
  const create = async (name: string, path: string, extra: Record<string, unknown> = {}) => {
    const response = await api.post(`/api/jobs/${job.id}/endpoints`, {
      name,
      url: `${target.origin}${path}`,
      method: 'GET',
      baselineIntervalMs: 1000,
      ...extra,
    });
    expect(response.status).toBe(201);
    createdIds.push(response.body.id as string);
    return response.body.id as string;
  };
  // FAST endpoints, more while a shard of three holds none (random ids miss one ≈8 % of the time).
  const shardsCovered = () => new Set(endpointIds.map((id) => shardOf(id, 3))).size;
  for (let index = 0; index < FAST + 12 && (index < FAST || shardsCovered() < 3); index += 1) {
    endpointIds.push(await create(`fast ${index}`, `/fast/${index}`));
  }
  // The slow endpoint must change shard on 1 → 3 for the overlap case; ids are random, so retry a few.
  for (let attempt = 0; attempt < 20 && !slowId; attempt += 1) {
    const id = await create(`slow ${attempt}`, `/slow/${attempt}`, { timeoutMs: 10_000 });
    if (shardOf(id, 3) !== 0) {
      slowId = id;
      slowPath = `/slow/${attempt}`;
    } else expect((await api.post(`/api/jobs/${job.id}/endpoints/${id}/archive`)).status).toBe(200);
  }
  expect(slowId).not.toBe('');
  endpointIds.push(slowId);
  expect(new Set(endpointIds.map((id) => shardOf(id, 3))).size).toBe(3);
  await everyEndpointRuns(new Date(0), 2, 'two runs of every endpoint on one shard');

  // 1 → 3 while the slow endpoint's call is in flight on shard 0 (its lock there).
  await waitFor(async () => slowInFlight.get(slowPath) === 1, 10_000, 'the slow call in flight');
  const overlapsBefore = await overlapSkips();
  // The procedure: the old layout's schedulers stop before the new ones start (a scheduler of the old
  // layout would not see a moved due job and its reconcile would add it again); executors roll.
  await old.scheduler.close();
  const grown = await start({ count: 3, previous: 1 });
  // A change mid-call: the new scheduler plans the slow endpoint's next run on its new shard, due
  // before the call ends; admission must see the old shard's lock and skip it as an overlap.
  const patched = await api.patch(`/api/jobs/${job.id}/endpoints/${slowId}`, { description: 'resharded mid-call' });
  expect(patched.status).toBe(200);
  await waitFor(async () => (await overlapSkips()) > overlapsBefore, 10_000, 'the overlap refused across shards');
  await old.executor?.close();
  await grown.scheduler.reconciler.runIfLeader();
  const grownAt = new Date();
  await everyEndpointRuns(grownAt, 2, 'two runs of every endpoint on three shards');
  await expectDueJobsOnShards(grown, 3);

  // 3 → 2: the third shard's endpoints move; its leftovers drain meanwhile.
  await grown.scheduler.close();
  const shrunk = await start({ count: 2, previous: 3 });
  await grown.executor?.close();
  await shrunk.scheduler.reconciler.runIfLeader();
  const shrunkAt = new Date();
  const runs = await everyEndpointRuns(shrunkAt, 2, 'two runs of every endpoint on two shards');
  await expectDueJobsOnShards(shrunk, 2);
  expect(await shrunk.scheduler.dueQueue.shards[2]!.getJobCountByTypes('delayed', 'wait')).toBe(0);

  // Every call so far recorded (bounded wait for those in flight: the calls are read once, as the
  // engine keeps calling meanwhile), then nothing twice.
  const called = target.requests.map((request) => String(request.headers['x-service-run-id']));
  let unrecorded: string[] = [];
  const all = await waitFor(
    async () => {
      // Every endpoint's runs: a slow candidate archived above may have been called (and recorded) first.
      const recorded = await harness.db.prisma.run.findMany({ where: { endpointId: { in: createdIds } } });
      const ids = new Set(recorded.map((run) => run.id));
      unrecorded = called.filter((runId) => !ids.has(runId));
      return unrecorded.length === 0 ? recorded : null;
    },
    // A call cut off by an executor's close is recorded by its redelivery: up to the due worker's
    // lock (15 s) plus a stalled check (10 s) later, longer on a loaded machine.
    45_000,
    'every call recorded',
  ).catch((error: Error) => {
    const missing = arrivals.filter((arrival) => unrecorded.some((runId) => arrival.startsWith(runId)));
    throw new Error(`${error.message}; calls never recorded: ${JSON.stringify(missing)}`);
  });
  expect(runs.length).toBeGreaterThan(0);
  expectNothingTwice(all);
}, 150_000);
