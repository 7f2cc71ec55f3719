/**
 * Run now, replay and backfill (routes/manual-runs.ts): the api never calls user endpoints itself
 * (the executor pool owns egress and its SSRF policy), so each run is a BullMQ job on the
 * manual-runs queue, executed by the executor as a real run (services/executor/src/manual-run.ts).
 * The api answers at once (202) with the run id a Run now or a replay will be recorded under.
 */
import { newId } from '@kairos/core';
import {
  QUEUES,
  backfillJobId,
  currentTraceparent,
  traceContextOf,
  type ManualRunPayload,
  type RedisConnection,
  type RequestOverrides,
} from '@kairos/queue';
import { Queue } from 'bullmq';

export interface ManualRunRequest {
  endpointId: string;
  accountId: string;
  overrides?: RequestOverrides | undefined;
  replayOf?: string | undefined;
}

export interface ManualRuns {
  /** Queues a Run now (or a replay) at `now`; answers its run id. */
  runNow(request: ManualRunRequest, now: Date): Promise<{ runId: string; scheduledAt: Date }>;
  /**
   * Queues one backfill run per slot (epoch ms) that has no job yet; answers how many it queued. A slot
   * whose job is still queued keeps it (its job id names the slot); the caller leaves out recorded slots.
   */
  backfill(endpoint: { endpointId: string; accountId: string }, slotsMs: number[]): Promise<number>;
  close(): Promise<void>;
}

/** Backfill jobs are kept a day once done, so a repeated backfill meanwhile finds them (and the runs). */
const KEEP_DONE = { age: 86_400 };

export function createManualRuns(connection: RedisConnection, prefix: string): ManualRuns {
  const queue = new Queue<ManualRunPayload>(QUEUES.manualRuns, {
    connection,
    prefix,
    // One attempt: a run that fails is recorded as failed; an executor that dies mid-run hands it on (stalled).
    defaultJobOptions: { attempts: 1, removeOnComplete: KEEP_DONE, removeOnFail: KEEP_DONE },
  });
  return {
    async runNow(request, now) {
      const runId = newId();
      await queue.add(
        'manual',
        {
          runId,
          endpointId: request.endpointId,
          accountId: request.accountId,
          source: 'manual',
          scheduledAtMs: now.getTime(),
          ...(request.replayOf ? { replayOf: request.replayOf } : {}),
          ...(request.overrides ? { overrides: request.overrides } : {}),
          ...traceContextOf(currentTraceparent()),
        },
        { jobId: runId },
      );
      return { runId, scheduledAt: now };
    },
    async backfill({ endpointId, accountId }, slotsMs) {
      if (slotsMs.length === 0) return 0;
      const ids = slotsMs.map((slotMs) => backfillJobId(endpointId, slotMs));
      // Which slots have a job already (queued, or done within KEEP_DONE): one round trip for the range.
      const pipeline = connection.pipeline();
      for (const id of ids) pipeline.exists(queue.toKey(id));
      const exists = (await pipeline.exec()) ?? [];
      const fresh = slotsMs.flatMap((slotMs, index) => (exists[index]?.[1] === 1 ? [] : [{ slotMs, id: ids[index]! }]));
      const traceparent = traceContextOf(currentTraceparent());
      await queue.addBulk(
        fresh.map(({ slotMs, id }) => ({
          name: 'backfill',
          data: {
            runId: newId(),
            endpointId,
            accountId,
            source: 'backfill' as const,
            scheduledAtMs: slotMs,
            ...traceparent,
          },
          opts: { jobId: id },
        })),
      );
      return fresh.length;
    },
    close: () => queue.close(),
  };
}
