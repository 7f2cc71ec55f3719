/**
 * Runs, endpoint health, test execution and the dashboard: query shapes and response records
 * (the run record, the endpoint health summary). The choices for the dashboard's fields and the
 * edge cases are written next to each field so they reach the OpenAPI document.
 */
import { z } from 'zod';
import { pagingQuery } from './common.js';

export const RUN_STATUSES = ['success', 'failed'] as const;
export type RunStatusValue = (typeof RUN_STATUSES)[number];

export const RUNS_LIMITS = {
  /** Runs list: default page size. */
  listDefaultLimit: 20,
  healthDefaultHours: 24,
  /** One year. */
  healthMaxHours: 8760,
  dashboardDefaultDays: 7,
  /** Inclusive days from startDate to endDate. */
  dashboardMaxDays: 366,
  failingEndpointsLimit: 10,
} as const;

const isoTime = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });

export const listRunsQuery = pagingQuery(RUNS_LIMITS.listDefaultLimit).extend({
  status: z.enum(RUN_STATUSES).optional().meta({ description: 'Only runs with this status' }),
});
export type ListRunsQuery = z.infer<typeof listRunsQuery>;

/** One HTTP call of a run whose endpoint has `retry` set. */
export const runAttemptRecord = z
  .object({
    attempt: z.number().int().meta({ description: '1 for the first call' }),
    startedAt: isoTime,
    durationMs: z.number().int(),
    statusCode: z.number().int().nullable().meta({ description: 'null when no response arrived' }),
    errorKind: z.string().nullable().meta({ description: "As the run's errorKind; null when this call succeeded" }),
    errorMessage: z.string().nullable(),
    retryAfterMs: z.number().int().nullable().meta({
      description: "The response's Retry-After (seconds or an HTTP date) in ms; null when absent or unreadable",
    }),
    nextAttemptInMs: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'The wait before the next attempt; null on the last one' }),
  })
  .meta({ id: 'RunAttempt' });
export type RunAttemptRecord = z.infer<typeof runAttemptRecord>;

export const runRecord = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    status: z.enum(RUN_STATUSES).meta({
      description: "success (HTTP 2xx/3xx, or as the endpoint's successWhen decides) or failed (anything else)",
    }),
    statusCode: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Final HTTP status; null when no response arrived (timeout, connection error)' }),
    durationMs: z.number().int(),
    responseBody: z.unknown().meta({
      description:
        'The response body: parsed JSON when it parses, else the text; null when empty or absent. ' +
        'Truncated to maxResponseSizeKb (see responseTruncated). Made storable: invalid UTF-8 bytes, U+0000 ' +
        'and unpaired UTF-16 surrogates (e.g. the JSON escape "\\ud800") are replaced by U+FFFD, in JSON ' +
        'strings and object keys alike, keeping the JSON structure (see responseBodyAltered); JSON nested ' +
        'deeper than 1000 levels is stored as text.',
    }),
    responseFormat: z.enum(['json', 'text', 'empty']).nullable(),
    responseTruncated: z.boolean(),
    responseBodyAltered: z.boolean().meta({
      description:
        'True when characters of responseBody were replaced by U+FFFD to make it storable (the body held ' +
        'U+0000, an unpaired surrogate or invalid UTF-8); false otherwise',
    }),
    responseSizeBytes: z.number().int().nullable(),
    errorKind: z
      .string()
      .nullable()
      .meta({
        description:
          'When failed: timeout, http_status, network, blocked, too_large, invalid_request, assertion_failed ' +
          '(the response failed a successWhen condition; errorMessage names it and the value seen), secret_missing ' +
          '(a {{secrets.NAME}} reference names no secret of the account; errorMessage names it) or record_error ' +
          '(the call completed but the run could not be stored as it came back: status code and timing kept, ' +
          'body dropped, errorMessage says why) (open list)',
      }),
    errorMessage: z.string().nullable().meta({ description: 'Present (non-null) when failed' }),
    error: z.string().nullable().meta({ description: 'Same as errorMessage (both names are kept)' }),
    scheduledAt: isoTime.meta({ description: 'The planned time' }),
    startedAt: isoTime,
    completedAt: isoTime,
    lateMs: z.number().int().meta({ description: 'startedAt − scheduledAt: how late the run started' }),
    waitedForHostMs: z
      .number()
      .int()
      .nullable()
      .meta({
        description:
          "Milliseconds the call waited for its account's host budget (hostLimits) before it started, part of lateMs; " +
          'null: it did not wait',
      }),
    source: z.string().meta({
      description:
        "Why it ran: baseline-cron, baseline-interval, ai-interval, ai-oneshot, rule-interval (a response rule's " +
        "interval), rule (another endpoint's rule ran it), test, manual (Run now or a replay), backfill (a past slot " +
        'run by a backfill) (open list)',
    }),
    replayOf: z
      .string()
      .nullable()
      .meta({ description: 'The run this one replays (POST /api/runs/{id}/replay); null otherwise' }),
    attempt: z.number().int().meta({ description: 'Delivery attempt (2 after an executor crash, same id)' }),
    rulesMatched: z.array(z.string()).meta({
      description:
        "The names of the endpoint's response rules this run matched, in order (empty: none, or the endpoint had no " +
        'rules). A Test now run lists them too, but its rules do not act',
    }),
    attempts: z
      .array(runAttemptRecord)
      .nullable()
      .meta({
        description:
          "Every HTTP call of the run, oldest first, when its endpoint has retry set (else null: one call). The run's " +
          'statusCode, durationMs, completedAt, responseBody and error describe the last call; startedAt is the ' +
          "first call's start. A failed run's errorMessage ends with why retrying stopped",
      }),
  })
  .meta({ id: 'Run' });
export type RunRecord = z.infer<typeof runRecord>;

export const endpointHealthQuery = z.object({
  sinceHours: z.coerce
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(RUNS_LIMITS.healthMaxHours, `must be at most ${RUNS_LIMITS.healthMaxHours}`)
    .default(RUNS_LIMITS.healthDefaultHours)
    .meta({ description: `Window in hours (default ${RUNS_LIMITS.healthDefaultHours}, 1 to 8760)` }),
});

export const endpointHealthRecord = z
  .object({
    endpointId: z.string(),
    sinceHours: z.number().int(),
    totalRuns: z
      .number()
      .int()
      .meta({ description: 'Runs started in the window, test runs included (as are the counts and figures below)' }),
    successCount: z.number().int(),
    failureCount: z.number().int(),
    successRate: z
      .number()
      .meta({ description: 'Percent (0-100, two decimals) of runs in the window that succeeded; 0 when none' }),
    avgDurationMs: z.number().int().meta({ description: 'Mean duration in the window, rounded; 0 when no runs' }),
    p95DurationMs: z.number().int().meta({ description: '95th percentile duration in the window; 0 when no runs' }),
    lastRunAt: isoTime.nullable().meta({
      description: "Start of the endpoint's latest scheduled run (as on the endpoint; test runs excluded)",
    }),
    lastStatus: z.enum(RUN_STATUSES).nullable().meta({ description: 'Status of that run' }),
    failureStreak: z
      .number()
      .int()
      .meta({ description: "The endpoint's consecutive failures (scheduled runs; drives backoff)" }),
  })
  .meta({ id: 'EndpointHealth' });
export type EndpointHealthRecord = z.infer<typeof endpointHealthRecord>;

export const testRunResultRecord = z
  .object({
    runId: z.string().meta({ description: 'The recorded run (source test)' }),
    status: z.enum(RUN_STATUSES),
    durationMs: z.number().int(),
    statusCode: z.number().int().nullable(),
    responseBody: z.unknown().optional().meta({ description: 'On success: the response body' }),
    errorMessage: z.string().optional().meta({ description: 'On failure: what went wrong' }),
  })
  .meta({ id: 'TestRunResult' });

export const calendarDate = z.iso
  .date('must be a date YYYY-MM-DD')
  .meta({ description: 'UTC date', example: '2026-11-21' });

export const dashboardQuery = z.object({
  startDate: calendarDate.optional().meta({
    description: `First day (inclusive, UTC); default ${RUNS_LIMITS.dashboardDefaultDays - 1} days before endDate`,
  }),
  endDate: calendarDate.optional().meta({ description: 'Last day (inclusive, UTC); default today' }),
});
export type DashboardQuery = z.infer<typeof dashboardQuery>;

const count = z.number().int();
const percent = z.number().meta({ description: 'Percent (0-100, two decimals); 0 when there are no runs' });

export const dashboardRecord = z
  .object({
    range: z.object({ startDate: calendarDate, endDate: calendarDate }),
    totals: z.object({
      jobs: count.meta({ description: 'Jobs that are not archived (now)' }),
      endpoints: count.meta({ description: 'Endpoints that are not archived (now)' }),
      activeEndpoints: count.meta({ description: 'Of those, neither paused nor in a paused job' }),
      pausedEndpoints: count.meta({ description: 'Of those, paused or in a paused job' }),
      runs: count.meta({ description: 'Runs started in the range, test runs included' }),
      successfulRuns: count,
      failedRuns: count,
    }),
    successRate: percent,
    runsOverTime: z
      .array(z.object({ date: calendarDate, success: count, failed: count }))
      .meta({ description: 'One entry per day of the range, oldest first, days without runs as zeros' }),
    runsBySource: z.record(z.string(), count).meta({ description: 'Runs in the range per source' }),
    lateness: z
      .object({
        runs: count.meta({ description: 'Scheduled (non-test) runs measured' }),
        p50Ms: count,
        p95Ms: count,
        p99Ms: count,
        maxMs: count,
      })
      .meta({ description: 'startedAt − scheduledAt of scheduled runs in the range (tests excluded); 0 when none' }),
    failingEndpoints: z
      .array(
        z.object({
          endpointId: z.string(),
          name: z.string(),
          jobId: z.string(),
          jobName: z.string(),
          failureCount: count,
          lastRunAt: isoTime.nullable(),
        }),
      )
      .meta({
        description: `Endpoints (not archived) with consecutive failures now, most first, at most ${RUNS_LIMITS.failingEndpointsLimit}`,
      }),
    ai: z
      .object({ sessions: count, tokens: count })
      .meta({ description: 'AI analysis sessions created in the range and the tokens they used' }),
  })
  .meta({ id: 'Dashboard' });
export type DashboardRecord = z.infer<typeof dashboardRecord>;
