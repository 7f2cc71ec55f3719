/**
 * "Test now" (POST /api/endpoints/:id/test). The api never calls user endpoints itself: the
 * executor pool owns egress and its SSRF policy. The api adds a BullMQ job to the test-runs queue (its id
 * = run id) and waits for its result through QueueEvents; the executor runs the request, records a
 * run with source "test" (no change to nextRunAt, lastRunAt or failureCount) and returns a
 * TestRunResult. No answer within the endpoint's timeout plus a grace period means no executor is
 * serving: SERVICE_UNAVAILABLE, and a test nobody picked up is withdrawn so it never runs late.
 */
import { AppError, newId } from '@kairos/core';
import {
  QUEUES,
  currentTraceparent,
  testRunResult,
  traceContextOf,
  type TestRunPayload,
  type TestRunResult,
} from '@kairos/queue';
import { Queue, QueueEvents } from 'bullmq';
import type { RedisConnection } from '@kairos/queue';

export interface TestNow {
  run(endpoint: { id: string; accountId: string; timeoutMs: number }): Promise<TestRunResult>;
  close(): Promise<void>;
}

export interface TestNowOptions {
  /** Shared producer connection (adds the job). */
  connection: RedisConnection;
  /** Dedicated connection for QueueEvents (blocking XREAD); closed by close(). */
  eventsConnection: RedisConnection;
  prefix: string;
  /** Added to the endpoint's timeoutMs: queueing, executor start-up, recording the run. */
  graceMs?: number;
  onError?: (message: string, meta: Record<string, unknown>) => void;
}

const DEFAULT_GRACE_MS = 10_000;

export function createTestNow(options: TestNowOptions): TestNow {
  const { prefix, graceMs = DEFAULT_GRACE_MS, onError = () => undefined } = options;
  const queue = new Queue<TestRunPayload, TestRunResult>(QUEUES.testRuns, {
    connection: options.connection,
    prefix,
    // One attempt: the caller is waiting for this one result; finished jobs expire after an hour.
    defaultJobOptions: { attempts: 1, removeOnComplete: { age: 3600 }, removeOnFail: { age: 3600 } },
  });
  const events = new QueueEvents(QUEUES.testRuns, { connection: options.eventsConnection, prefix });
  events.on('error', (error) => onError('test-run events connection error', { error: error.message }));

  /** After the wait ended without a result: what became of the job. */
  async function settle(runId: string): Promise<TestRunResult> {
    const job = await queue.getJob(runId);
    const state = job ? await job.getState() : 'unknown';
    // The completion event was missed (QueueEvents starting up): the stored result is as good.
    if (job && state === 'completed') return testRunResult.parse(job.returnvalue);
    if (state === 'failed') {
      onError('test run failed in the executor', { runId, reason: job?.failedReason });
      throw new AppError('SERVICE_UNAVAILABLE', 'the executor could not run the test; try again', { runId });
    }
    if (job && (state === 'waiting' || state === 'prioritized' || state === 'delayed')) {
      await job.remove().catch(() => undefined);
      throw new AppError('SERVICE_UNAVAILABLE', 'no executor available to run the test; try again later', { runId });
    }
    throw new AppError('SERVICE_UNAVAILABLE', 'the executor did not answer in time', { runId });
  }

  return {
    async run(endpoint) {
      const runId = newId();
      const job = await queue.add(
        'test',
        { runId, endpointId: endpoint.id, accountId: endpoint.accountId, ...traceContextOf(currentTraceparent()) },
        { jobId: runId },
      );
      try {
        return testRunResult.parse(await job.waitUntilFinished(events, endpoint.timeoutMs + graceMs));
      } catch {
        return settle(runId);
      }
    },
    async close() {
      await queue.close();
      await events.close();
      options.eventsConnection.disconnect();
    },
  };
}
