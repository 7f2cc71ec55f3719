import { ERROR_STATUS, type ErrorCode } from '../errors.js';
/**
 * Response records: what the API returns (and the MCP server and the UI consume). Each field is
 * documented here, so it reaches the OpenAPI document.
 */
import { z } from 'zod';
import { blackoutWindow, retrySettings } from './endpoint.js';
import { responseRules, ruleAction, ruleCondition, successWhenInput } from './response-rules.js';
import { JOB_STATUSES } from './job.js';
import { HTTP_METHODS } from './limits.js';
import { MISSED_RUNS } from '../schedule/slots.js';

const isoTime = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });
const nullableTime = isoTime.nullable();

export const jobRecord = z
  .object({
    id: z.string(),
    key: z.string().nullable().meta({ description: 'Stable name for configuration files; null: none' }),
    name: z.string(),
    description: z.string().nullable(),
    status: z.enum(JOB_STATUSES),
    endpointCount: z.number().int().meta({ description: 'Endpoints that are not archived' }),
    createdAt: isoTime,
    updatedAt: isoTime,
    pausedAt: nullableTime,
    archivedAt: nullableTime,
  })
  .meta({ id: 'Job' });

/** The calendar window that moved a run (core/schedule/calendar.ts CalendarHold, times as ISO text). */
export const calendarHoldRecord = z
  .object({
    kind: z.enum(['blackout', 'activeFrom']).meta({
      description: 'blackout: one of the endpoint’s blackout windows; activeFrom: the start of its active period',
    }),
    index: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'The window’s place in blackouts (from 0); null for activeFrom' }),
    from: nullableTime.meta({ description: 'When this occurrence of the window opened; null for activeFrom' }),
    to: isoTime.meta({ description: 'When it closes: the run is the first one at or after it' }),
  })
  .meta({ id: 'CalendarHold' });

/** Who set a hint or a pause: a person (API, UI, MCP), the AI planner, or a response rule. */
export const CHANGE_ORIGINS = ['user', 'planner', 'rule'] as const;
export const ENDPOINT_STATUSES = ['active', 'paused', 'archived'] as const;

export const intervalHintRecord = z
  .object({
    intervalMs: z.number().int(),
    expiresAt: isoTime,
    reason: z.string().nullable(),
    origin: z.enum(CHANGE_ORIGINS),
    setAt: nullableTime,
  })
  .meta({ id: 'IntervalHint' });

export const oneShotHintRecord = z
  .object({
    nextRunAt: isoTime,
    expiresAt: isoTime,
    reason: z.string().nullable(),
    origin: z.enum(CHANGE_ORIGINS),
    setAt: nullableTime,
  })
  .meta({ id: 'OneShotHint' });

export const endpointRecord = z
  .object({
    id: z.string(),
    jobId: z.string(),
    key: z.string().nullable().meta({ description: 'Stable name for configuration files; null: none' }),
    name: z.string(),
    description: z.string().nullable(),
    url: z.string(),
    method: z.enum(HTTP_METHODS),
    baselineIntervalMs: z.number().int().nullable(),
    baselineCron: z.string().nullable(),
    timezone: z.string(),
    minIntervalMs: z.number().int().nullable(),
    maxIntervalMs: z.number().int().nullable(),
    jitterMs: z
      .number()
      .int()
      .meta({ description: 'Runs move later by up to this many ms (fixed per run id); 0: exact' }),
    missedRuns: z.enum(MISSED_RUNS).meta({
      description: 'Slots missed while the scheduler was away: latest (one run), skip (none) or all (each once)',
    }),
    activeFrom: nullableTime.meta({ description: 'No run starts before it; null: no start' }),
    activeUntil: nullableTime.meta({ description: 'No run starts at or after it; null: no end' }),
    blackouts: z
      .array(blackoutWindow)
      .nullable()
      .meta({ description: 'Windows during which no run starts; null: none' }),
    timeoutMs: z.number().int(),
    maxResponseSizeKb: z.number().int(),
    retry: retrySettings.nullable().meta({ description: 'Retries inside a run; null: one call per run' }),
    propagateTrace: z.boolean().meta({
      description: 'The trace context goes to the target while the deployment has tracing on; false: never',
    }),
    headersJson: z
      .record(z.string(), z.string())
      .nullable()
      .meta({ description: 'Request headers; values of sensitive headers are masked as ********' }),
    bodyJson: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]).nullable(),
    status: z.enum(ENDPOINT_STATUSES).meta({
      description: 'archived; paused (endpoint paused until a time, or its job is paused); else active',
    }),
    jobPaused: z.boolean(),
    nextRunAt: nullableTime.meta({ description: 'When the next execution is due; null when nothing is scheduled' }),
    nextRunSource: z
      .enum(['baseline-cron', 'baseline-interval', 'ai-interval', 'ai-oneshot', 'rule-interval', 'rule'])
      .nullable()
      .meta({
        description:
          'What decided nextRunAt: the cron or interval baseline (with backoff), an interval hint (rule-interval: ' +
          "a response rule's), or a one-shot hint (rule: another endpoint's rule asked for one run)",
      }),
    nextRunCalendar: calendarHoldRecord.nullable().meta({
      description:
        'The calendar window that moved the next run (a blackout window or the start of the active period); ' +
        'null: none did',
    }),
    lastRunAt: nullableTime,
    lastStatus: z.enum(['success', 'failed']).nullable(),
    failureCount: z.number().int().meta({ description: 'Consecutive failures (drives backoff)' }),
    backoffMultiplier: z.number().int().meta({ description: 'Applied to the baseline interval: 1, 2, 4 … 32' }),
    autoPauseAfterFailures: z.number().int().nullable().meta({
      description: "Pause after this many consecutive failures; null: the account's default (null there too: never)",
    }),
    pausedUntil: nullableTime,
    pauseReason: z.string().nullable(),
    autoPausedAt: nullableTime.meta({
      description: 'Set while the current pause is an auto-pause (autoPauseAfterFailures reached); resume clears it',
    }),
    hints: z.object({
      interval: intervalHintRecord.nullable(),
      oneShot: oneShotHintRecord.nullable(),
    }),
    successWhen: successWhenInput.nullable().meta({ description: 'When a run succeeds; null: HTTP 2xx and 3xx' }),
    rules: responseRules.nullable().meta({ description: 'Response rules, in order; null: none' }),
    aiRules: z
      .object({
        proposedBy: z.literal('planner'),
        rules: z
          .array(z.object({ name: z.string(), when: ruleCondition, then: ruleAction }))
          .nullable()
          .meta({ description: 'Evaluated after the endpoint rules; names start with "planner: "' }),
        successWhen: successWhenInput
          .nullable()
          .meta({ description: 'Used only while the endpoint has no successWhen of its own' }),
        reason: z.string().nullable().meta({ description: "The planner's reason" }),
        setAt: nullableTime,
        expiresAt: isoTime.meta({
          description: 'They lapse then unless an analysis renews or replaces them (at most 7 days)',
        }),
        sessionId: z.string().nullable().meta({ description: 'The analysis session that wrote them' }),
      })
      .nullable()
      .meta({
        id: 'AiRules',
        description:
          "Response rules proposed by the planner (the account's aiRules setting), kept apart from the endpoint " +
          'rules and never changing them; null: none (none written, or lapsed)',
      }),
    ruleState: z
      .object({
        rule: z.string().meta({ description: 'The rule whose interval is in force' }),
        intervalMs: z.number().int().meta({ description: 'Its interval, clamped to minIntervalMs/maxIntervalMs' }),
        since: isoTime.meta({ description: 'When it started to match (renewing runs keep this time)' }),
        expiresAt: isoTime.meta({ description: 'When it ends unless a run matches again (two intervals on)' }),
        explanation: z.string().meta({
          example: "runs every 60 s because rule 'backlog high' matched at 2026-11-30T10:02:00.000Z",
        }),
      })
      .nullable()
      .meta({
        description:
          'The response rule whose interval is in force (hints.interval with origin rule); null: none. The first run ' +
          'that does not match ends it, and a later AI or user interval hint replaces it',
      }),
    archivedAt: nullableTime,
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: 'Endpoint' });

export const errorBody = z
  .object({
    error: z.object({
      code: z
        .enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]])
        .meta({ example: 'VALIDATION_ERROR', description: 'What went wrong; the HTTP status follows from it' }),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: 'Error' });

export type JobRecord = z.infer<typeof jobRecord>;
export type EndpointRecord = z.infer<typeof endpointRecord>;
