/** Stored rows → the API's records (core/schemas/records.ts). Expired hints are shown as absent. */
import {
  backoffMultiplier,
  computeNextRun,
  describeRuleState,
  hasCalendar,
  maskHeaders,
  toCalendarHoldRecord,
  type EndpointConfig,
  type EndpointRecord,
  type JobRecord,
  type ScheduleInput,
} from '@kairos/core';
import type { EndpointWithJob, JobWithCount } from '@kairos/db';

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export function toJobRecord(job: JobWithCount): JobRecord {
  return {
    id: job.id,
    key: job.key,
    name: job.name,
    description: job.description,
    status: job.status,
    endpointCount: job.endpointCount,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
    pausedAt: iso(job.pausedAt),
    archivedAt: iso(job.archivedAt),
  };
}

export function toEndpointRecord(endpoint: EndpointWithJob, now: Date): EndpointRecord {
  const nowMs = now.getTime();
  const intervalActive =
    endpoint.hintIntervalMs !== null &&
    endpoint.hintIntervalExpiresAt !== null &&
    endpoint.hintIntervalExpiresAt.getTime() > nowMs;
  const oneShotActive =
    endpoint.hintOneShotAt !== null &&
    endpoint.hintOneShotExpiresAt !== null &&
    endpoint.hintOneShotExpiresAt.getTime() > nowMs;
  const pauseActive = endpoint.pausedUntil !== null && endpoint.pausedUntil.getTime() > nowMs;
  const jobPaused = endpoint.job.status === 'paused';
  const status = endpoint.archivedAt ? 'archived' : pauseActive || jobPaused ? 'paused' : 'active';
  return {
    id: endpoint.id,
    jobId: endpoint.jobId,
    key: endpoint.key,
    name: endpoint.name,
    description: endpoint.description,
    url: endpoint.url,
    method: endpoint.method as EndpointRecord['method'],
    baselineIntervalMs: endpoint.baselineIntervalMs,
    baselineCron: endpoint.baselineCron,
    timezone: endpoint.timezone,
    minIntervalMs: endpoint.minIntervalMs,
    maxIntervalMs: endpoint.maxIntervalMs,
    jitterMs: endpoint.jitterMs,
    missedRuns: endpoint.missedRuns as EndpointRecord['missedRuns'],
    activeFrom: iso(endpoint.activeFrom),
    activeUntil: iso(endpoint.activeUntil),
    blackouts: (endpoint.blackouts as EndpointRecord['blackouts']) ?? null,
    timeoutMs: endpoint.timeoutMs,
    maxResponseSizeKb: endpoint.maxResponseSizeKb,
    retry: (endpoint.retry as EndpointRecord['retry']) ?? null,
    propagateTrace: endpoint.propagateTrace,
    headersJson: maskHeaders(endpoint.headers as Record<string, string> | null),
    bodyJson: (endpoint.body as EndpointRecord['bodyJson']) ?? null,
    status,
    jobPaused,
    nextRunAt: iso(endpoint.nextRunAt),
    nextRunSource: endpoint.nextRunAt ? ((endpoint.nextRunSource as EndpointRecord['nextRunSource']) ?? null) : null,
    nextRunCalendar: nextRunCalendarOf(endpoint, now),
    lastRunAt: iso(endpoint.lastRunAt),
    lastStatus: endpoint.lastStatus,
    failureCount: endpoint.failureCount,
    backoffMultiplier: backoffMultiplier(endpoint.failureCount),
    autoPauseAfterFailures: endpoint.autoPauseAfterFailures,
    pausedUntil: pauseActive ? iso(endpoint.pausedUntil) : null,
    pauseReason: pauseActive ? endpoint.pauseReason : null,
    autoPausedAt: pauseActive ? iso(endpoint.autoPausedAt) : null,
    hints: {
      interval: intervalActive
        ? {
            intervalMs: endpoint.hintIntervalMs!,
            expiresAt: endpoint.hintIntervalExpiresAt!.toISOString(),
            reason: endpoint.hintIntervalReason,
            origin: endpoint.hintIntervalOrigin ?? 'user',
            setAt: iso(endpoint.hintIntervalSetAt),
          }
        : null,
      oneShot: oneShotActive
        ? {
            nextRunAt: endpoint.hintOneShotAt!.toISOString(),
            expiresAt: endpoint.hintOneShotExpiresAt!.toISOString(),
            reason: endpoint.hintOneShotReason,
            origin: endpoint.hintOneShotOrigin ?? 'user',
            setAt: iso(endpoint.hintOneShotSetAt),
          }
        : null,
    },
    successWhen: (endpoint.successWhen as EndpointRecord['successWhen']) ?? null,
    rules: (endpoint.rules as EndpointRecord['rules']) ?? null,
    aiRules:
      endpoint.aiRulesExpiresAt !== null && endpoint.aiRulesExpiresAt.getTime() > nowMs
        ? {
            proposedBy: 'planner',
            rules: (endpoint.aiRules as NonNullable<EndpointRecord['aiRules']>['rules']) ?? null,
            successWhen: (endpoint.aiSuccessWhen as EndpointRecord['successWhen']) ?? null,
            reason: endpoint.aiRulesReason,
            setAt: iso(endpoint.aiRulesSetAt),
            expiresAt: endpoint.aiRulesExpiresAt.toISOString(),
            sessionId: endpoint.aiRulesSessionId,
          }
        : null,
    ruleState: intervalActive && endpoint.hintIntervalOrigin === 'rule' ? ruleStateOf(endpoint) : null,
    archivedAt: iso(endpoint.archivedAt),
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

/**
 * The endpoint's scheduling inputs (core ScheduleInput) from its row, with `config`'s scheduling fields
 * (the stored ones, or a draft's: services/api/src/routes/upcoming.ts).
 */
export function scheduleInputOf(
  endpoint: EndpointWithJob,
  config: Pick<
    EndpointConfig,
    | 'baselineIntervalMs'
    | 'baselineCron'
    | 'timezone'
    | 'minIntervalMs'
    | 'maxIntervalMs'
    | 'missedRuns'
    | 'activeFrom'
    | 'activeUntil'
    | 'blackouts'
  >,
): ScheduleInput {
  return {
    baselineIntervalMs: config.baselineIntervalMs,
    baselineCron: config.baselineCron,
    timezone: config.timezone,
    minIntervalMs: config.minIntervalMs,
    maxIntervalMs: config.maxIntervalMs,
    missedRuns: config.missedRuns,
    activeFrom: config.activeFrom === null ? null : new Date(config.activeFrom),
    activeUntil: config.activeUntil === null ? null : new Date(config.activeUntil),
    blackouts: config.blackouts,
    failureCount: endpoint.failureCount,
    lastScheduledAt: endpoint.lastScheduledAt,
    lastRunAt: endpoint.lastRunAt,
    createdAt: endpoint.createdAt,
    pausedUntil: endpoint.pausedUntil,
    hintIntervalMs: endpoint.hintIntervalMs,
    hintIntervalExpiresAt: endpoint.hintIntervalExpiresAt,
    hintOneShotAt: endpoint.hintOneShotAt,
    hintOneShotExpiresAt: endpoint.hintOneShotExpiresAt,
    hintIntervalOrigin: endpoint.hintIntervalOrigin,
    hintOneShotOrigin: endpoint.hintOneShotOrigin,
  };
}

/**
 * The calendar window that moved the planned run, found by the scheduling rules at `now` (only for an
 * endpoint with a calendar): named when the rules still give the planned time (up to its jitter offset).
 */
function nextRunCalendarOf(endpoint: EndpointWithJob, now: Date): EndpointRecord['nextRunCalendar'] {
  const planned = endpoint.nextRunAt;
  if (planned === null) return null;
  const input = scheduleInputOf(endpoint, {
    ...endpoint,
    missedRuns: endpoint.missedRuns as EndpointConfig['missedRuns'],
    activeFrom: endpoint.activeFrom?.toISOString() ?? null,
    activeUntil: endpoint.activeUntil?.toISOString() ?? null,
    blackouts: (endpoint.blackouts as EndpointConfig['blackouts']) ?? null,
  });
  if (!hasCalendar(input)) return null;
  let next;
  try {
    next = computeNextRun(input, now);
  } catch {
    return null; // a row the rules cannot plan is the scheduler's to report, not the record's
  }
  const hold = next?.explanation.calendar;
  if (!next || !hold) return null;
  const offsetMs = planned.getTime() - next.nextRunAt.getTime();
  return offsetMs >= 0 && offsetMs <= endpoint.jitterMs ? toCalendarHoldRecord(hold) : null;
}

/** The response rule whose interval hint is in force (its name is the hint's reason; since: when it began to match). */
function ruleStateOf(endpoint: EndpointWithJob): EndpointRecord['ruleState'] {
  const state = {
    rule: endpoint.hintIntervalReason ?? '',
    intervalMs: endpoint.hintIntervalMs!,
    since: (endpoint.hintIntervalSetAt ?? endpoint.updatedAt).toISOString(),
    expiresAt: endpoint.hintIntervalExpiresAt!.toISOString(),
  };
  return { ...state, explanation: describeRuleState(state) };
}
