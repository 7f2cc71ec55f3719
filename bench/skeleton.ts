/**
 * The reference shape: what a durable scheduler in the shape Kairos's architecture
 * prescribes costs before any of Kairos's own work, in two processes of its own against the same target:
 *
 *   scheduler → delayed BullMQ job → executor → run-completed → scheduler
 *
 * with only the PostgreSQL statements that shape needs, Kairos's own (@kairos/db), in batches as Kairos
 * takes them: the executor reads the endpoint before the call (loadExecutionTargets: pause, archive and
 * the URL are read fresh) and records the run with its endpoint's state (recordScheduledRuns), then
 * announces the batch on run-completed; the scheduler adds each next due job. No running lock, no
 * quota, no signing, no metrics, no outcome stash, no notifications, no planner. SKELETON_PLAN=1: the
 * scheduler also stores each next planned run under its row lock first (recomputeEndpoints, as Kairos's
 * recompute does, with the next run simply a second after the last), so that a planned run survives
 * the loss of Redis under the same run id.
 *
 * Run by bench/run.ts as two child processes (SKELETON_ROLE executor, then scheduler) on a database
 * holding the endpoints (Kairos's schema); every input comes from the environment:
 *   SKELETON_REDIS_URL, SKELETON_PREFIX, SKELETON_DATABASE_URL, SKELETON_TARGET, SKELETON_RUN_MS (no
 *   job is due later after the first), SKELETON_CALLS (calls at once: the executor's default call slots).
 *   SKELETON_CALL_THREAD=1: the executor makes its calls in a worker thread (skeleton-call-thread.ts).
 *   SKELETON_KAIROS: Kairos's own parts put into the shape one step at a time, to say which of them costs
 *   what ("which cost is left"): `call` makes each call through Kairos's callEndpoint (the
 *   request signed with the account's key, SKELETON_MASTER_KEY; the call's trace check; services/executor/
 *   src/http: the request's preparation, the egress check, got's stream, the stored body) and records
 *   run-execution.ts's toRun; `call,admission` (with SKELETON_PLAN) also admits and records through Kairos's
 *   Admissions and RunRecorder (the skip rules, the running lock, the quota, the outcome stash, their batch
 *   scripts, Kairos's announcement); `call,admission,execute` runs each due job through Kairos's
 *   executePlannedRun with those parts (the call slots, the dispatch lead's wait, retries' entry, the phase
 *   metrics). What is left between the last step and Kairos's executor is services/executor/src/queue-workers.ts
 *   around it (BullMQ's processor wrapper, the run's metrics and log line, the service's other workers).
 * The executor says 'ready' once its worker is; the scheduler then adds every endpoint's first due job,
 * due from one second later and spread over one second, and says its first due time. 'stop' ends both.
 */
import { randomUUID } from 'node:crypto';
import { Worker as Thread } from 'node:worker_threads';
import { createDatabase } from '@kairos/db';
import {
  loadExecutionTargets,
  recomputeEndpoints,
  recordScheduledRuns,
  type ExecutionTarget,
  type RunOutcome,
  type ScheduleRow,
} from '@kairos/db/system';
import { PlannerPresence, type RunsCompletedPayload, type RunCompletedPayload } from '@kairos/queue';
import { GroupCommit } from '@kairos/runtime';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { DUE_JOBS_PER_CALL_SLOT } from '../services/executor/src/call-slots.js';
import { Admissions } from '../services/executor/src/admission.js';
import { createCallSlots } from '../services/executor/src/call-slots.js';
import { RESPONSE_MEMORY_MB } from '../services/executor/src/config.js';
import { callEndpoint, executePlannedRun, toRun } from '../services/executor/src/run-execution.js';
import { createHttpExecutor } from '../services/executor/src/http/index.js';
import { OutcomeStash } from '../services/executor/src/outcome-stash.js';
import { ResponseRulesCache } from '../services/executor/src/response-rules.js';
import { Retries } from '../services/executor/src/retry.js';
import { RunQuota } from '../services/executor/src/run-quota.js';
import { RECORD_BATCHES_AT_ONCE, RunRecorder } from '../services/executor/src/run-recorder.js';
import { RunningLock } from '../services/executor/src/running-lock.js';
import { SigningKeys } from '../services/executor/src/signing-keys.js';
import { requiredEnv } from './script-env.js';
import { callClient } from './call-client.js';
import type { ThreadAnswer, ThreadCall, ThreadResponse } from './skeleton-call-thread.js';

const redisUrl = requiredEnv('SKELETON_REDIS_URL');
const prefix = requiredEnv('SKELETON_PREFIX');
const role = requiredEnv('SKELETON_ROLE');
const db = createDatabase({ url: requiredEnv('SKELETON_DATABASE_URL'), poolMax: 18 });
const connect = () => new Redis(redisUrl, { maxRetriesPerRequest: null });
const producer = connect();
/** Nothing is kept of a processed job; set on the workers, as Kairos's executor does for due jobs. */
const removed = { removeOnComplete: { count: 0 }, removeOnFail: { count: 0 } };
/** One planned run: its endpoint, run id and time (ms); the version it was stored at (SKELETON_PLAN). */
interface Due {
  endpointId: string;
  accountId: string;
  runId: string;
  due: number;
  scheduleVersion?: number;
}
/** Kairos's parts in this shape (above). */
const kairos = new Set((process.env.SKELETON_KAIROS ?? '').split(',').filter(Boolean));
const due = new Queue<Due>('due', { connection: producer, prefix });
const runCompleted = new Queue<{ runs: Due[] }>('run-completed', { connection: producer, prefix });
/** What the scheduler hears: the shape's announcement, or Kairos's recorder's (no time: the row has it). */
type Completed = { runs: (Due | RunCompletedPayload)[] };
const dueJob = (run: Due, now: number) => ({
  name: 'due',
  data: run,
  opts: { jobId: `${run.endpointId}.${run.due}`, timestamp: now, delay: Math.max(0, run.due - now) },
});
/** Batches as Kairos's admissions (200, two at once) and recorder (200, RECORD_BATCHES_AT_ONCE) take them. */
const batched = <T, R>(flush: (items: T[]) => Promise<R[]>, atOnce: number) =>
  new GroupCommit(flush, { maxBatch: 200, maxParallel: atOnce });

let worker: Worker;
if (role === 'executor') {
  const calls = Number(requiredEnv('SKELETON_CALLS'));
  const call = process.env.SKELETON_CALL_THREAD === '1' ? callThread(calls) : callClient(calls);
  const admissions = batched(async (endpointIds: string[]) => {
    const targets = await loadExecutionTargets(db, endpointIds);
    return endpointIds.map((id) => targets.get(id) ?? null);
  }, 2);
  const records = batched(async (runs: RunOutcome[]) => {
    await recordScheduledRuns(db, runs);
    await runCompleted.add('completed', {
      runs: runs.map((run) => ({
        endpointId: run.endpointId,
        accountId: run.accountId,
        runId: run.id,
        due: +run.scheduledAt,
      })),
    });
    return runs.map(() => undefined);
  }, RECORD_BATCHES_AT_ONCE);
  const kairosCall = kairos.has('call') ? kairosSteps(admissions, records, calls) : null;
  worker = new Worker<Due>(
    'due',
    async ({ data }) => {
      if (kairosCall) return kairosCall(data);
      const target = await admissions.submit(data.endpointId);
      if (!target || target.archivedAt || target.jobStatus !== 'active' || (target.pausedUntil ?? 0) > new Date())
        return;
      const startedAt = new Date();
      const response = await call(target.url, {
        method: target.method as 'GET',
        headers: { 'x-service-run-id': data.runId, 'x-bench-due': String(data.due) },
      });
      const completedAt = new Date();
      await records.submit({
        id: data.runId,
        accountId: data.accountId,
        endpointId: data.endpointId,
        source: 'baseline',
        status: response.statusCode < 400 ? 'success' : 'failed',
        scheduledAt: new Date(data.due),
        startedAt,
        completedAt,
        durationMs: +completedAt - +startedAt,
        statusCode: response.statusCode,
        responseBody: JSON.parse(response.body) as unknown,
        responseFormat: 'json',
        responseTruncated: false,
        responseBodyAltered: false,
        responseSizeBytes: response.body.length,
        errorKind: null,
        errorMessage: null,
        attempt: 1,
      });
    },
    { connection: connect(), prefix, concurrency: DUE_JOBS_PER_CALL_SLOT * calls, ...removed },
  );
  await worker.waitUntilReady();
  process.send?.({ ready: true });
} else {
  const runMs = Number(requiredEnv('SKELETON_RUN_MS'));
  const plan = process.env.SKELETON_PLAN === '1';
  const { rows } = await db.pool.query<{ id: string; accountId: string }>(
    `SELECT id, "accountId" FROM endpoints ORDER BY id`,
  );
  const now = Date.now();
  const startAt = now + 1000;
  const stopAt = startAt + runMs;
  /**
   * The next due jobs after `ran`, added in one bulk write (the plan stored first with SKELETON_PLAN).
   * Kairos's recorder announces no time (SKELETON_KAIROS admission): the next is a second after the
   * run the row recorded last (lastScheduledAt).
   */
  const next = async (ran: Completed['runs']) => {
    if (!plan) {
      const at = Date.now();
      const following = (ran as Due[]).filter((run) => run.due + 1000 <= stopAt);
      await due.addBulk(following.map((run) => dueJob({ ...run, runId: randomUUID(), due: run.due + 1000 }, at)));
      return;
    }
    const following = ran.filter((run) => !('due' in run) || run.due + 1000 <= stopAt);
    const dueOf = new Map(following.map((run) => [run.endpointId, 'due' in run ? run.due + 1000 : null]));
    await planAndQueue(
      [...dueOf.keys()],
      (row) => dueOf.get(row.id) ?? (row.lastScheduledAt ? +row.lastScheduledAt + 1000 : null),
    );
  };
  /** Stores each endpoint's planned run at `at` (none after the run's end) and queues its due job. */
  const planAndQueue = (endpointIds: string[], at: (row: ScheduleRow) => number | null) =>
    recomputeEndpoints(
      db,
      endpointIds,
      (row) => {
        const dueAt = at(row);
        return dueAt === null || dueAt > stopAt
          ? null
          : { scheduledAt: new Date(dueAt), runId: randomUUID(), source: 'baseline' };
      },
      async (recomputed) => {
        const at = Date.now();
        await due.addBulk(
          recomputed.flatMap(({ planned, scheduleVersion }) =>
            planned
              ? [
                  dueJob(
                    {
                      endpointId: planned.endpointId,
                      accountId: planned.accountId,
                      runId: planned.runId,
                      due: +planned.scheduledAt,
                      // Kairos's admission reads the planned run at the version its due job names.
                      ...(kairos.has('admission') ? { scheduleVersion } : {}),
                    },
                    at,
                  ),
                ]
              : [],
          ),
        );
      },
    );
  worker = new Worker<Completed>('run-completed', async ({ data }) => next(data.runs), {
    connection: connect(),
    prefix,
    concurrency: 50,
    ...removed,
  });
  await worker.waitUntilReady();
  const firstDue = (index: number) => startAt + Math.floor((index * 1000) / rows.length);
  const order = new Map(rows.map((row, index) => [row.id, index]));
  for (let i = 0; i < rows.length; i += 1000) {
    // Kairos's admission admits only a planned run stored on the row: the first ones are planned too.
    if (kairos.has('admission')) {
      await planAndQueue(
        rows.slice(i, i + 1000).map((row) => row.id),
        (row) => firstDue(order.get(row.id)!),
      );
      continue;
    }
    await due.addBulk(
      rows.slice(i, i + 1000).map((row, k) =>
        dueJob(
          {
            endpointId: row.id,
            accountId: row.accountId,
            runId: randomUUID(),
            due: firstDue(i + k),
          },
          now,
        ),
      ),
    );
  }
  process.send?.({ startAt });
}
/**
 * The executor's processor with Kairos's parts (SKELETON_KAIROS, above): its call, and with `admission`
 * its admission and recorder, each built as services/executor/src/queue-workers.ts builds them for one shard.
 */
function kairosSteps(
  reads: GroupCommit<string, ExecutionTarget | null>,
  records: GroupCommit<RunOutcome, undefined>,
  calls: number,
) {
  // As the benchmark's Kairos runs: the target's address allowed, the account's key signing.
  const http = createHttpExecutor({
    egress: { allowPrivateTargets: false, allowCidrs: ['127.0.0.1/32'] },
    userAgent: 'Kairos/0.1 (+scheduler)',
  });
  const signingKeys = new SigningKeys(Buffer.from(requiredEnv('SKELETON_MASTER_KEY'), 'hex'));
  const now = () => new Date();
  const ends = kairos.has('admission') ? kairosEnds(now) : null;
  if (ends && kairos.has('execute')) {
    const deps = {
      db,
      http,
      ...ends,
      retries: new Retries({ db, redis: producer, prefix, now }),
      signingKeys,
      responseRules: new ResponseRulesCache(),
      callSlots: createCallSlots(calls, RESPONSE_MEMORY_MB * 1024),
      now,
    };
    return async (data: Due) => {
      await executePlannedRun(deps, { endpointId: data.endpointId, scheduleVersion: data.scheduleVersion! }, 1);
    };
  }
  return async (data: Due) => {
    let target: ExecutionTarget | null;
    let runId = data.runId;
    let scheduledAt = new Date(data.due);
    if (ends) {
      const admission = await ends.admissions.admit({
        endpointId: data.endpointId,
        scheduleVersion: data.scheduleVersion!,
      });
      if (admission.kind !== 'admitted') return;
      ({ target } = admission);
      ({ runId, scheduledAt } = admission.planned);
    } else {
      target = await reads.submit(data.endpointId);
      if (!target || target.archivedAt || target.jobStatus !== 'active' || (target.pausedUntil ?? 0) > new Date())
        return;
    }
    const outcome = await callEndpoint({ http, signingKeys, now }, target, runId, scheduledAt);
    const run = toRun(target, runId, 'baseline', scheduledAt, outcome, 1, null);
    if (ends) await ends.recorder.record({ run, scheduleVersion: data.scheduleVersion!, aiSchedulingEnabled: false });
    else await records.submit(run);
  };
}

/** Kairos's admission and recorder for one queue (shard 0), as the executor builds them. */
function kairosEnds(now: () => Date) {
  const lock = new RunningLock(producer, prefix);
  const runQuota = new RunQuota(db, producer, prefix, { shared: true });
  const stash = new OutcomeStash(prefix);
  const announce = <T>(name: string) =>
    new Queue<T>(name, {
      connection: producer,
      prefix,
      defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000 },
    });
  return {
    admissions: new Admissions({ db, redis: producer, lock, runQuota, stash, now }),
    recorder: new RunRecorder({
      db,
      redis: producer,
      lock,
      runQuota,
      stash,
      runCompleted: announce<RunsCompletedPayload>('run-completed'),
      runCompletedForPlanner: announce<RunCompletedPayload>('run-completed-planner'),
      plannerPresence: new PlannerPresence(producer, prefix),
    }),
  };
}

/**
 * Calls made in a worker thread (bench/skeleton-call-thread.ts), answered like got's promise: the
 * executor's thread keeps BullMQ, the read, the record and the announcement.
 */
function callThread(calls: number) {
  const thread = new Thread(new URL('./skeleton-call-thread.ts', import.meta.url), { workerData: { calls } });
  thread.unref();
  const waiting = new Map<number, { resolve(response: ThreadResponse): void; reject(error: Error): void }>();
  let nextId = 0;
  thread.on('message', (answer: ThreadAnswer) => {
    const caller = waiting.get(answer.id);
    waiting.delete(answer.id);
    if ('error' in answer) caller?.reject(new Error(answer.error));
    else caller?.resolve(answer);
  });
  return (url: string, options: { method: string; headers: Record<string, string> }) =>
    new Promise<ThreadResponse>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      thread.postMessage({ id, url, ...options } satisfies ThreadCall);
    });
}

process.on('message', async () => {
  await worker.close();
  await Promise.all([due.close(), runCompleted.close()]);
  await db.close();
  process.exit(0);
});
