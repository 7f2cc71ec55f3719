/**
 * When the planner analyses an endpoint, decided after each of its recorded scheduled runs.
 *
 * An analysis starts (first match) when:
 *  1. none has ever started ('first-analysis');
 *  2. the endpoint's nextAnalysisAt has passed ('scheduled': the time the model chose, or the retry
 *     time after a failed analysis, or the end of an exhausted budget period);
 *  3. a response rule of the endpoint asked for one with this run ('rule': its `analyse` action);
 *  4. something changed since the last completed analysis: the first run ('first-run'), the run's
 *     status differs from the previous run's ('status-changed'), or the failure count rose to a
 *     higher backoff step than the last analysis saw ('failures-rose'; past the 32x cap nothing
 *     changes, so a long outage does not trigger an analysis per run).
 * A rule's request counts as a change: it waits for the spacing and the backoff like one.
 * While the planner's own rules are in force (the account's AI rules on, `plannerRulesInForce`),
 * they say what wakes it: a run's status or failures no longer count as a change, only a rule's
 * request does (the planner wrote down what it foresaw, and marks with `analyse` what it did not).
 * And never when:
 *  - an analysis of the endpoint is in progress: one was claimed (lastAnalysisAt) and its session
 *    is not recorded yet, within the lease (a crashed planner's claim lapses after it);
 *  - the last one started less than minIntervalMs ago (the configured spacing); a change seen then
 *    brings nextAnalysisAt forward to the end of the spacing instead, so it is not lost;
 *  - the last analysis failed or was skipped and nextAnalysisAt (its backoff) has not passed: a
 *    change never bypasses the backoff, so a failing model is not called once per run.
 * So a burst of runs becomes at most one analysis per endpoint per minIntervalMs.
 */
import { backoffMultiplier } from '../schedule/backoff.js';

export const ANALYSIS_TRIGGERS = [
  'first-analysis',
  'scheduled',
  'first-run',
  'status-changed',
  'failures-rose',
  'rule',
] as const;
export const ANALYSIS_STATUSES = ['completed', 'failed', 'skipped'] as const;
export type AnalysisTrigger = (typeof ANALYSIS_TRIGGERS)[number];
export type AnalysisSessionStatus = (typeof ANALYSIS_STATUSES)[number];
type RunStatus = 'success' | 'failed';

export interface AnalysisGateInput {
  lastAnalysisAt: Date | null;
  nextAnalysisAt: Date | null;
  /** The latest recorded session (its createdAt is the time its analysis was claimed). */
  lastSession: { createdAt: Date; status: AnalysisSessionStatus; endpointFailureCount: number } | null;
  /** The run that was just recorded, the scheduled run before it (null: this is the first). */
  runStatus: RunStatus;
  previousRunStatus: RunStatus | null;
  /** Consecutive failures after this run. */
  failureCount: number;
  /** A response rule asked for an analysis with this run (its `analyse` action). */
  ruleRequested?: boolean;
  /** The planner's own response rules are in force: only a rule's request counts as a change. */
  plannerRulesInForce?: boolean;
}

export interface AnalysisGateOptions {
  minIntervalMs: number;
  /** How long a claimed analysis counts as in progress without a recorded session. */
  leaseMs: number;
}

export type AnalysisDecision =
  | { analyse: true; trigger: AnalysisTrigger }
  | {
      analyse: false;
      reason: 'in-progress' | 'too-soon' | 'backing-off' | 'not-due';
      /** Bring nextAnalysisAt forward to this time (a change arrived during the spacing). */
      pullForwardTo?: Date;
    };

function detectChange(input: AnalysisGateInput): AnalysisTrigger | null {
  if (input.ruleRequested) return 'rule';
  if (input.plannerRulesInForce) return null;
  if (input.previousRunStatus === null) return 'first-run';
  if (input.runStatus !== input.previousRunStatus) return 'status-changed';
  const seen = input.lastSession?.endpointFailureCount ?? 0;
  if (input.failureCount > seen && backoffMultiplier(input.failureCount) > backoffMultiplier(seen)) {
    return 'failures-rose';
  }
  return null;
}

export function decideAnalysis(input: AnalysisGateInput, options: AnalysisGateOptions, now: Date): AnalysisDecision {
  const { lastAnalysisAt, nextAnalysisAt, lastSession } = input;
  if (lastAnalysisAt === null) return { analyse: true, trigger: 'first-analysis' };

  const claimedWithoutSession = lastSession === null || lastSession.createdAt < lastAnalysisAt;
  if (claimedWithoutSession && now.getTime() < lastAnalysisAt.getTime() + options.leaseMs) {
    return { analyse: false, reason: 'in-progress' };
  }

  const lastSucceeded = lastSession?.status === 'completed';
  const change = lastSucceeded ? detectChange(input) : null;
  const spacingEndsAt = new Date(lastAnalysisAt.getTime() + options.minIntervalMs);
  if (now < spacingEndsAt) {
    const pullForward = change !== null && (nextAnalysisAt === null || spacingEndsAt < nextAnalysisAt);
    return { analyse: false, reason: 'too-soon', ...(pullForward ? { pullForwardTo: spacingEndsAt } : {}) };
  }
  if (nextAnalysisAt === null || nextAnalysisAt <= now) return { analyse: true, trigger: 'scheduled' };
  if (!lastSucceeded) return { analyse: false, reason: 'backing-off' };
  return change !== null ? { analyse: true, trigger: change } : { analyse: false, reason: 'not-due' };
}

/** After a failed analysis: wait 1, 2, 4 … minutes (at least the spacing), at most 6 hours. */
export const ANALYSIS_RETRY = { baseMs: 60_000, maxMs: 6 * 3_600_000 } as const;

export function analysisRetryDelayMs(consecutiveFailures: number, minIntervalMs: number): number {
  const base = Math.max(ANALYSIS_RETRY.baseMs, minIntervalMs);
  const exponent = Math.min(Math.max(consecutiveFailures, 1) - 1, 20);
  return Math.min(base * 2 ** exponent, Math.max(ANALYSIS_RETRY.maxMs, base));
}
