import { z } from 'zod';
import { traceparentField } from './trace-context.js';

/** api → scheduler: recompute these endpoints' schedules now. */
export const scheduleChangePayload = z.object({
  endpointIds: z.array(z.string()).min(1),
  reason: z.string(),
  /** The change's trace context, only when tracing is on (trace-context.ts). */
  traceparent: traceparentField,
});
export type ScheduleChangePayload = z.infer<typeof scheduleChangePayload>;

/**
 * scheduler → executor: an endpoint's planned run (db's PlannedRun) as the due job carries it
 * (JSON: `scheduledAt` is an ISO string). `scheduleVersion` is the endpoint's version when it was
 * planned; the executor drops the due job when it no longer matches (a later change superseded it).
 * `runId` is fixed here so a retried delivery keeps its id.
 */
export const plannedRunPayload = z.object({
  endpointId: z.string(),
  accountId: z.string(),
  scheduleVersion: z.number().int(),
  runId: z.string(),
  scheduledAt: z.string(),
  source: z.string(),
  /**
   * During a reshard only (shards.ts): the shard whose running lock the endpoint's previous execution
   * may still hold, when it is not this due job's shard. Admission refuses the run while it is held.
   */
  lockShard: z.number().int().min(0).optional(),
  /** The recompute's trace context, only when tracing is on (one string: trace-context.ts). */
  traceparent: traceparentField,
});
export type PlannedRunPayload = z.infer<typeof plannedRunPayload>;

/** BullMQ job id of an endpoint's planned run, the due job (custom ids may not contain ':'). */
export const dueJobId = (endpointId: string, scheduleVersion: number): string => `${endpointId}.${scheduleVersion}`;

/** executor → scheduler: a scheduled execution was recorded. */
export const runCompletedPayload = z.object({
  runId: z.string(),
  endpointId: z.string(),
  accountId: z.string(),
  status: z.enum(['success', 'failed']),
  source: z.string(),
  /** The scheduleVersion of the planned run that ran (lets the scheduler skip removing its due job). */
  scheduleVersion: z.number().int().optional(),
  /** The execution's trace context, only when tracing is on (trace-context.ts). */
  traceparent: traceparentField,
});
export type RunCompletedPayload = z.infer<typeof runCompletedPayload>;

/** api → executor: run this endpoint now as a test (no scheduling state changes). */
export const testRunPayload = z.object({
  runId: z.string(),
  endpointId: z.string(),
  accountId: z.string(),
  traceparent: traceparentField,
});
export type TestRunPayload = z.infer<typeof testRunPayload>;

/** executor → api: what a test run returned (also recorded as a run with source "test"). */
export const testRunResult = z.object({
  runId: z.string(),
  status: z.enum(['success', 'failed']),
  durationMs: z.number().int(),
  statusCode: z.number().int().nullable(),
  responseBody: z.unknown().optional(),
  errorMessage: z.string().optional(),
});
export type TestRunResult = z.infer<typeof testRunResult>;

/** → executor: deliver the notification row with this id (its channel, payload and attempts are in PostgreSQL). */
export const notificationJobPayload = z.object({ notificationId: z.string() });
export type NotificationJobPayload = z.infer<typeof notificationJobPayload>;

/**
 * Delivery retries of a notification: 6 attempts, with the worker's backoff (type `notification`:
 * exponential from its NOTIFICATION_RETRY_BASE_MS, 2 s by default → 2, 4, 8, 16, 32 s, about a minute
 * in all, enough for a receiver's restart or a deploy). The job id is the notification id, so adding
 * one twice delivers it once.
 */
export const NOTIFICATION_ATTEMPTS = 6;
export const notificationJob = (notificationId: string) => ({
  name: 'deliver',
  data: { notificationId } satisfies NotificationJobPayload,
  opts: {
    jobId: notificationId,
    attempts: NOTIFICATION_ATTEMPTS,
    backoff: { type: 'notification' },
    removeOnComplete: true,
    removeOnFail: 1000,
  },
});
