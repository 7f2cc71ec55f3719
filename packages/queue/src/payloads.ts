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
 * scheduler → executor: the due job of an endpoint's planned run. It carries no copy of the planned
 * run: its id names the endpoint and the scheduleVersion the run was planned at, and every change
 * of the row's nextRunAt / nextRunId / nextRunSource bumps that version, so when the row's version
 * matches, the row holds exactly this run (its runId, fixed when planned, so a retried delivery
 * keeps its id); when it does not, the due job is stale. The executor reads the row anyway (to call
 * the endpoint), so the copy cost Redis memory and nothing else: a due job with the planned run as
 * JSON (≈210 bytes of data) takes 1,229 bytes per endpoint, this one ≈450
 * (docs/decisions/0012-due-jobs-carry-no-copy-of-the-run.md).
 * The data is `{}`, plus the recompute's trace context when tracing is on (trace-context.ts) and
 * `lockShard` during a reshard.
 */
export const dueJobData = z.object({
  /**
   * During a reshard only (shards.ts): the shard whose running lock the endpoint's previous execution
   * may still hold, when it is not this due job's shard. Admission refuses the run while it is held.
   */
  lockShard: z.number().int().min(0).optional(),
  /** The recompute's trace context, only when tracing is on (one string: trace-context.ts). */
  traceparent: traceparentField,
  /**
   * Only on a due job its host's budget delayed (services/executor/src/host-budget.ts): when the
   * run was first held (epoch ms), and how many deliveries the budget gave back (they are not
   * delivery attempts).
   */
  hostHeldSince: z.number().int().optional(),
  hostDelays: z.number().int().min(0).optional(),
});
export type DueJobData = z.infer<typeof dueJobData>;

/** What a due job names: the endpoint and the scheduleVersion of its planned run. */
export interface DueJobRef {
  endpointId: string;
  scheduleVersion: number;
  /** From the due job's data during a reshard (dueJobData.lockShard). */
  lockShard?: number | undefined;
}

/**
 * BullMQ job id of an endpoint's planned run, the due job: the endpoint id's 16 bytes in base64url
 * (22 characters, not 36) and the version, `<endpointId>.<scheduleVersion>` in short (custom ids may
 * not contain ':'). Why short: BullMQ stores the id in the job's key, in the delayed set and in the
 * job's `opts` JSON, and Redis keeps a hash compact (a listpack, ≈170 bytes, against ≈500 as a
 * hashtable) only while every value is ≤ 64 bytes (hash-max-listpack-value, default 64): `opts` is
 * `{"jobId":"<id>","delay":<ms>}`, 21 + id + delay digits, so the id must stay ≤ 30 characters for
 * delays up to 115 days (10 digits). A UUID's 36 characters leave no room; 22 + 1 + version do.
 */
export const dueJobId = (endpointId: string, scheduleVersion: number): string =>
  `${Buffer.from(endpointId.replaceAll('-', ''), 'hex').toString('base64url')}.${scheduleVersion}`;

/**
 * The endpoint and version a due job id names (dueJobId's inverse); null for an id of another shape.
 * Also reads the long form `<uuid>.<version>` of due jobs queued before the short ids (an upgrade
 * runs them; the reconcile sweep adds their short twins, and the slot runs once: admission skips the
 * second as recorded).
 */
export function parseDueJobId(jobId: string | undefined): DueJobRef | null {
  const match = /^(?:([A-Za-z0-9_-]{22})|([0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}))\.(\d+)$/.exec(jobId ?? '');
  if (!match) return null;
  const hex = match[1] ? Buffer.from(match[1], 'base64url').toString('hex') : match[2]!.replaceAll('-', '');
  const endpointId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { endpointId, scheduleVersion: Number(match[3]) };
}

/** executor → scheduler: a scheduled execution was recorded. */
export const runCompletedPayload = z.object({
  runId: z.string(),
  endpointId: z.string(),
  accountId: z.string(),
  status: z.enum(['success', 'failed']),
  source: z.string(),
  /** The scheduleVersion of the planned run that ran (lets the scheduler skip removing its due job). */
  scheduleVersion: z.number().int().optional(),
  /** A response rule of the endpoint asked for a planner analysis now (run-completed-planner only). */
  analyse: z.literal(true).optional(),
  /**
   * The next planned run, when the recorder stored it with the run (packages/db/src/executions.ts,
   * nextRunAfter): the row is current, the scheduler only queues its due job. Absent: the scheduler
   * recomputes the endpoint (a scheduler of an earlier release ignores it and recomputes, keeping
   * this run: same time, same id).
   */
  planned: z
    .object({
      scheduleVersion: z.number().int(),
      runId: z.string(),
      scheduledAtMs: z.number().int(),
      source: z.string(),
    })
    .optional(),
  /** The execution's trace context, only when tracing is on (trace-context.ts). */
  traceparent: traceparentField,
});
export type RunCompletedPayload = z.infer<typeof runCompletedPayload>;

/**
 * A `run-completed` job: the runs one recorder batch recorded (services/executor/src/run-recorder.ts),
 * one job for all of them. A job per run cost ≈ 30 Redis commands per execution (its add, BullMQ's
 * move to active and its move to finished, each a script of several commands) and a BullMQ job cycle
 * in the scheduler, for runs the scheduler then recomputes in one batch anyway. At 500 due/s, Redis
 * commands per execution are 48.4 against 78.7 with a job per run, scripts 5.24 against 7.42
 * (docs/decisions/0010-one-run-completed-job-per-batch.md).
 * The planner's queue (`run-completed-planner`) keeps a job per run: each is a model conversation.
 */
export const runsCompletedPayload = z.object({ runs: z.array(runCompletedPayload).min(1) });
export type RunsCompletedPayload = z.infer<typeof runsCompletedPayload>;

/**
 * The runs a `run-completed` job announces: its batch, or the one run of a job queued by an
 * executor of a version before batches (still waiting in Redis across an upgrade).
 */
const completedRuns = z.union([
  runsCompletedPayload.transform(({ runs }) => runs),
  runCompletedPayload.transform((run) => [run]),
]);
export const completedRunsOf = (data: unknown): RunCompletedPayload[] => completedRuns.parse(data);

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

/** A manual run's request changes, for this run only (the endpoint keeps its own). */
export const requestOverridesPayload = z.object({
  /** Merged over the endpoint's headers (a name given here replaces the endpoint's, case-insensitively). */
  headers: z.record(z.string(), z.string()).optional(),
  /** Replaces the endpoint's body. */
  body: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
});
export type RequestOverrides = z.infer<typeof requestOverridesPayload>;

/**
 * api → executor: run this endpoint as a real run, not planned by the scheduler: Run now and replay
 * (source manual: it counts for failures, backoff and the planner as a scheduled run does) or one
 * backfill slot (source backfill, scheduledAt the slot's time: the run is recorded, the endpoint's
 * scheduling state is left alone).
 */
export const manualRunPayload = z.object({
  runId: z.string(),
  endpointId: z.string(),
  accountId: z.string(),
  source: z.enum(['manual', 'backfill']),
  scheduledAtMs: z.number().int(),
  /** The run a replay repeats. */
  replayOf: z.string().optional(),
  overrides: requestOverridesPayload.optional(),
  traceparent: traceparentField,
});
export type ManualRunPayload = z.infer<typeof manualRunPayload>;

/**
 * BullMQ job id of one backfill slot: the endpoint (base64url, as dueJobId) and the slot's epoch ms,
 * so a second backfill over the same range finds the slot's job and adds none.
 */
export const backfillJobId = (endpointId: string, slotMs: number): string =>
  `backfill.${Buffer.from(endpointId.replaceAll('-', ''), 'hex').toString('base64url')}.${slotMs}`;

/** → executor: deliver the notification row with this id (its channel, payload and attempts are in PostgreSQL). */
export const notificationJobPayload = z.object({ notificationId: z.string() });
export type NotificationJobPayload = z.infer<typeof notificationJobPayload>;

/**
 * → executor: mail an invitation link (sent with the notifications' SMTP settings and retries). The
 * link is a one-time credential: it travels sealed under the master key (packages/core/src/signing/secret-box.ts),
 * the executor opens it into the mail; the job is removed once sent.
 */
export const INVITATION_MAIL_JOB = 'invitation-mail';
export const invitationMailPayload = z.object({
  invitationId: z.string(),
  email: z.string(),
  role: z.string(),
  /** Who invited (a name or an e-mail address), shown in the mail; null: not known. */
  invitedBy: z.string().nullable(),
  sealedUrl: z.string(),
  expiresAt: z.string(),
});
export type InvitationMailPayload = z.infer<typeof invitationMailPayload>;

export const invitationMailJob = (payload: InvitationMailPayload) => ({
  name: INVITATION_MAIL_JOB,
  data: payload,
  opts: {
    jobId: `invitation.${payload.invitationId}`,
    attempts: NOTIFICATION_ATTEMPTS,
    backoff: { type: 'notification' },
    removeOnComplete: true,
    removeOnFail: true,
  },
});

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
