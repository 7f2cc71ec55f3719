/** Test data (not a test): endpoint records as the API returns them, for the component tests. */
import type { Endpoint } from './endpoint-queries';

/** An active endpoint on a 1 min interval baseline, next run in 30 s, no hints, never run. */
export function buildEndpoint(overrides: Partial<Endpoint> = {}): Endpoint {
  const now = new Date().toISOString();
  return {
    id: 'e1',
    jobId: 'j1',
    key: null,
    name: 'Check backlog',
    description: null,
    url: 'https://example.com/backlog',
    method: 'GET',
    baselineIntervalMs: 60_000,
    baselineCron: null,
    timezone: 'UTC',
    minIntervalMs: null,
    maxIntervalMs: null,
    jitterMs: 0,
    timeoutMs: 30_000,
    maxResponseSizeKb: 100,
    retry: null,
    propagateTrace: true,
    headersJson: null,
    bodyJson: null,
    status: 'active',
    jobPaused: false,
    nextRunAt: new Date(Date.now() + 30_000).toISOString(),
    nextRunSource: 'baseline-interval',
    lastRunAt: null,
    lastStatus: null,
    failureCount: 0,
    backoffMultiplier: 1,
    pausedUntil: null,
    pauseReason: null,
    autoPauseAfterFailures: null,
    autoPausedAt: null,
    hints: { interval: null, oneShot: null },
    successWhen: null,
    rules: null,
    aiRules: null,
    ruleState: null,
    archivedAt: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}
