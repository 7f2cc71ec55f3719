/** Stored rows → the API's records (core/schemas/records.ts). Expired hints are shown as absent. */
import { backoffMultiplier, describeRuleState, maskHeaders, type EndpointRecord, type JobRecord } from '@kairos/core';
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
