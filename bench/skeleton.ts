/**
 * The card's shape at its least (issue #14): what a durable scheduler in Kairos's prescribed shape
 * costs before any of Kairos's own work, in two processes of its own against the same target:
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
 * The executor says 'ready' once its worker is; the scheduler then adds every endpoint's first due job,
 * due from one second later and spread over one second, and says its first due time. 'stop' ends both.
 */
import { randomUUID } from 'node:crypto';
import { Worker as Thread } from 'node:worker_threads';
import { createDatabase } from '@kairos/db';
import { loadExecutionTargets, recomputeEndpoints, recordScheduledRuns, type RunOutcome } from '@kairos/db/system';
import { GroupCommit } from '@kairos/runtime';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { DUE_JOBS_PER_CALL_SLOT } from '../services/executor/src/call-slots.js';
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
/** One planned run: its endpoint, run id and time (ms). */
interface Due {
  endpointId: string;
  accountId: string;
  runId: string;
  due: number;
}
const due = new Queue<Due>('due', { connection: producer, prefix });
const runCompleted = new Queue<{ runs: Due[] }>('run-completed', { connection: producer, prefix });
const dueJob = (run: Due, now: number) => ({
  name: 'due',
  data: run,
  opts: { jobId: `${run.endpointId}.${run.due}`, timestamp: now, delay: Math.max(0, run.due - now) },
});
/** Batches as Kairos's admissions, recorder and recompute take them (200, two at once). */
const batched = <T, R>(flush: (items: T[]) => Promise<R[]>) =>
  new GroupCommit(flush, { maxBatch: 200, maxParallel: 2 });

let worker: Worker;
if (role === 'executor') {
  const calls = Number(requiredEnv('SKELETON_CALLS'));
  const call = process.env.SKELETON_CALL_THREAD === '1' ? callThread(calls) : callClient(calls);
  const admissions = batched(async (endpointIds: string[]) => {
    const targets = await loadExecutionTargets(db, endpointIds);
    return endpointIds.map((id) => targets.get(id) ?? null);
  });
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
  });
  worker = new Worker<Due>(
    'due',
    async ({ data }) => {
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
  /** The next due jobs after `ran`, added in one bulk write (the plan stored first with SKELETON_PLAN). */
  const next = async (ran: Due[]) => {
    const following = ran.filter((run) => run.due + 1000 <= stopAt);
    if (!plan) {
      const at = Date.now();
      await due.addBulk(following.map((run) => dueJob({ ...run, runId: randomUUID(), due: run.due + 1000 }, at)));
      return;
    }
    const dueOf = new Map(following.map((run) => [run.endpointId, run.due + 1000]));
    await recomputeEndpoints(
      db,
      [...dueOf.keys()],
      (row) => ({ scheduledAt: new Date(dueOf.get(row.id)!), runId: randomUUID(), source: 'baseline' }),
      async (recomputed) => {
        const at = Date.now();
        await due.addBulk(
          recomputed.flatMap(({ planned }) =>
            planned
              ? [
                  dueJob(
                    {
                      endpointId: planned.endpointId,
                      accountId: planned.accountId,
                      runId: planned.runId,
                      due: +planned.scheduledAt,
                    },
                    at,
                  ),
                ]
              : [],
          ),
        );
      },
    );
  };
  worker = new Worker<{ runs: Due[] }>('run-completed', async ({ data }) => next(data.runs), {
    connection: connect(),
    prefix,
    concurrency: 50,
    ...removed,
  });
  await worker.waitUntilReady();
  for (let i = 0; i < rows.length; i += 1000) {
    await due.addBulk(
      rows.slice(i, i + 1000).map((row, k) =>
        dueJob(
          {
            endpointId: row.id,
            accountId: row.accountId,
            runId: randomUUID(),
            due: startAt + Math.floor(((i + k) * 1000) / rows.length),
          },
          now,
        ),
      ),
    );
  }
  process.send?.({ startAt });
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
