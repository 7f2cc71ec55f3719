/**
 * The endpoint's schedule in words: why the next run is when it is. Mirrors the scheduling rules
 * as packages/core/src/schedule/next-run.ts applies them (pause › one-shot hint › interval
 * hint › cron › interval, then the governor's minIntervalMs/maxIntervalMs clamps), reading the
 * endpoint record the API returns (nextRunSource says which rule decided nextRunAt).
 *
 * Pure: `now` is a parameter, and absolute times go through `formatTime` so tests can pin them.
 */
import type { Schemas } from '../api/client';
import { formatDateTime, formatDuration } from '../lib/time';

export type ScheduleFacts = Pick<
  Schemas['Endpoint'],
  | 'status'
  | 'jobPaused'
  | 'nextRunAt'
  | 'nextRunSource'
  | 'lastRunAt'
  | 'baselineIntervalMs'
  | 'baselineCron'
  | 'timezone'
  | 'minIntervalMs'
  | 'maxIntervalMs'
  | 'failureCount'
  | 'backoffMultiplier'
  | 'pausedUntil'
  | 'pauseReason'
  | 'hints'
> &
  // Optional so facts built by hand (tests) need not name it; the API always sends it.
  Partial<Pick<Schemas['Endpoint'], 'ruleState' | 'nextRunCalendar'>>;

export interface ExplainOptions {
  formatTime?: (iso: string) => string;
}

/** Gaps this close to a clamp count as "held to the clamp" (the scheduler works in whole ms). */
const CLAMP_TOLERANCE_MS = 1000;
/** Past nextRunAt by more than this, a run is called overdue (within it, it is simply starting). */
const OVERDUE_AFTER_MS = 5000;

type Hints = ScheduleFacts['hints'];
type Origin = NonNullable<Hints['interval']>['origin'];

export function explainSchedule(endpoint: ScheduleFacts, now: Date | number, options: ExplainOptions = {}): string[] {
  const nowMs = typeof now === 'number' ? now : now.getTime();
  const at = options.formatTime ?? formatDateTime;
  const sentences: string[] = [];
  if (endpoint.status === 'archived') return ['This endpoint is archived: it no longer runs.'];
  if (endpoint.jobPaused) {
    sentences.push(
      'The job is paused, so this endpoint does not run until the job is resumed; then the schedule below applies.',
    );
  }
  if (endpoint.pausedUntil) {
    const left = formatDuration(Date.parse(endpoint.pausedUntil) - nowMs);
    sentences.push(
      `Paused until ${at(endpoint.pausedUntil)} (${left} from now): ` +
        'no scheduled runs until then, one run when it ends, and afterwards the schedule below applies.',
    );
    if (endpoint.pauseReason) sentences.push(`Reason for the pause: ${endpoint.pauseReason}`);
  }
  if (!endpoint.jobPaused && endpoint.nextRunAt === null) {
    sentences.push('No run is scheduled yet: the scheduler has not planned one.');
  }
  sentences.push(...explainSource(endpoint, nowMs, at));
  sentences.push(...explainClamps(endpoint));
  const held = endpoint.nextRunCalendar;
  if (held && endpoint.nextRunAt) {
    sentences.push(
      held.kind === 'blackout'
        ? `Blackout window ${(held.index ?? 0) + 1} (${held.from ? at(held.from) : ''} to ${at(held.to)}) moved ` +
            'the next run to the first scheduled time after it.'
        : `The endpoint is active from ${at(held.to)}: the next run is the first scheduled time from then.`,
    );
  }
  if (!endpoint.pausedUntil && endpoint.nextRunAt && nowMs - Date.parse(endpoint.nextRunAt) > OVERDUE_AFTER_MS) {
    const late = formatDuration(nowMs - Date.parse(endpoint.nextRunAt));
    sentences.push(`The next run is overdue by ${late}: it starts as soon as an executor is free.`);
  }
  return sentences;
}

/** "every 1 min" or `cron "*\/5 * * * *" (UTC)`. */
export function describeBaseline(endpoint: Pick<ScheduleFacts, 'baselineIntervalMs' | 'baselineCron' | 'timezone'>) {
  if (endpoint.baselineCron !== null) return `cron "${endpoint.baselineCron}" (${endpoint.timezone})`;
  if (endpoint.baselineIntervalMs !== null) return `every ${formatDuration(endpoint.baselineIntervalMs)}`;
  return 'no baseline';
}

/** What rule decides the next run, with backoff and hints that are set but do not apply. */
function explainSource(endpoint: ScheduleFacts, nowMs: number, at: (iso: string) => string): string[] {
  const { hints } = endpoint;
  const source = endpoint.nextRunSource ?? fallbackSource(endpoint);
  const sentences: string[] = [];
  if ((source === 'ai-oneshot' || source === 'rule') && hints.oneShot) {
    const { oneShot } = hints;
    sentences.push(
      `${hintLabel(oneShot.origin, 'one-shot')}: one run at ${at(oneShot.nextRunAt)}` +
        `${reasonText(oneShot.reason)}. Until then it replaces the scheduled runs; afterwards the schedule resumes from that run.`,
    );
  } else if (hints.oneShot) {
    sentences.push(
      `A one-shot hint for ${at(hints.oneShot.nextRunAt)} is set but will not run: ` +
        `it expires ${formatDuration(Date.parse(hints.oneShot.expiresAt) - nowMs)} from now, before it could.`,
    );
  }
  if (endpoint.baselineCron !== null) return [...sentences, ...explainCron(endpoint)];
  if (hints.interval && source !== 'baseline-interval') {
    sentences.push(
      ...(hints.interval.origin === 'rule'
        ? explainRuleInterval(endpoint, hints.interval, nowMs, at)
        : explainIntervalHint(endpoint, hints.interval, nowMs)),
    );
    return sentences;
  }
  sentences.push(explainIntervalBaseline(endpoint));
  if (hints.interval) {
    const left = formatDuration(Date.parse(hints.interval.expiresAt) - nowMs);
    sentences.push(
      `The interval hint (every ${formatDuration(hints.interval.intervalMs)}) ends in ${left}, ` +
        'before its next run would be due, so the baseline applies.',
    );
  }
  return sentences;
}

/** The record has no nextRunSource when nothing is planned (job paused): say what would apply. */
function fallbackSource(endpoint: ScheduleFacts): NonNullable<ScheduleFacts['nextRunSource']> {
  if (endpoint.hints.oneShot) return endpoint.hints.oneShot.origin === 'rule' ? 'rule' : 'ai-oneshot';
  if (endpoint.baselineCron !== null) return 'baseline-cron';
  if (!endpoint.hints.interval) return 'baseline-interval';
  return endpoint.hints.interval.origin === 'rule' ? 'rule-interval' : 'ai-interval';
}

function explainIntervalHint(endpoint: ScheduleFacts, hint: NonNullable<Hints['interval']>, nowMs: number): string[] {
  const left = formatDuration(Date.parse(hint.expiresAt) - nowMs);
  const sentences = [
    `${hintLabel(hint.origin, 'interval')}: every ${formatDuration(hint.intervalMs)} for another ${left}` +
      `${reasonText(hint.reason)}.`,
    `It overrides the baseline (${describeBaseline(endpoint)}) and any backoff; the baseline returns when it expires.`,
  ];
  if (endpoint.failureCount > 0) {
    sentences.push(`${failuresText(endpoint.failureCount)}, but backoff does not apply while the hint is active.`);
  }
  return sentences;
}

/**
 * A response rule's interval: "Runs every 1 min because rule 'backlog high' matched at 10:02." It
 * lasts while runs keep matching; its expiry (two intervals on) only ends it when runs stop.
 */
function explainRuleInterval(
  endpoint: ScheduleFacts,
  hint: NonNullable<Hints['interval']>,
  nowMs: number,
  at: (iso: string) => string,
): string[] {
  const rule = endpoint.ruleState?.rule ?? hint.reason ?? 'unnamed';
  const since = endpoint.ruleState?.since ?? hint.setAt;
  const left = formatDuration(Date.parse(hint.expiresAt) - nowMs);
  return [
    `Runs every ${formatDuration(hint.intervalMs)} because rule '${rule}' matched${since ? ` at ${at(since)}` : ''}.`,
    `It lasts while runs keep matching: the first run that does not match ends it (it lapses in ${left} without a ` +
      `run), and a later AI or user interval hint replaces it. It overrides the baseline (${describeBaseline(endpoint)}) and any backoff.`,
  ];
}

function explainIntervalBaseline(endpoint: ScheduleFacts): string {
  const baselineMs = endpoint.baselineIntervalMs ?? 0;
  if (endpoint.failureCount === 0) return `Baseline: every ${formatDuration(baselineMs)}.`;
  const stretched = formatDuration(baselineMs * endpoint.backoffMultiplier);
  return (
    `${failuresText(endpoint.failureCount)}: the ${formatDuration(baselineMs)} baseline is stretched ` +
    `${endpoint.backoffMultiplier}x to ${stretched}${capText(endpoint.backoffMultiplier)}.`
  );
}

function explainCron(endpoint: ScheduleFacts): string[] {
  const sentences = [`Baseline: ${describeBaseline(endpoint)}.`];
  if (endpoint.failureCount > 0) {
    sentences.push(
      `${failuresText(endpoint.failureCount)}: backoff ${endpoint.backoffMultiplier}x${capText(endpoint.backoffMultiplier)} ` +
        `skips cron times, so only about every ${ordinal(endpoint.backoffMultiplier)} one runs.`,
    );
  }
  if (endpoint.hints.interval) {
    sentences.push('The interval hint is ignored: cron-scheduled endpoints do not support interval hints.');
  }
  return sentences;
}

/** The governor's clamps, when the effective interval falls outside minIntervalMs..maxIntervalMs. */
function explainClamps(endpoint: ScheduleFacts): string[] {
  const { minIntervalMs: minMs, maxIntervalMs: maxMs } = endpoint;
  if (minMs === null && maxMs === null) return [];
  const limits = [
    minMs !== null ? `at least ${formatDuration(minMs)}` : null,
    maxMs !== null ? `at most ${formatDuration(maxMs)}` : null,
  ].filter(Boolean);
  const sentences: string[] = [];
  const effectiveMs = effectiveIntervalMs(endpoint);
  if (effectiveMs !== null && minMs !== null && effectiveMs < minMs) {
    sentences.push(
      `${formatDuration(effectiveMs)} is below the minimum interval, so the governor keeps runs ` +
        `${formatDuration(minMs)} apart.`,
    );
  } else if (effectiveMs !== null && maxMs !== null && effectiveMs > maxMs) {
    sentences.push(
      `${formatDuration(effectiveMs)} is above the maximum interval, so the governor runs it ` +
        `${formatDuration(maxMs)} after the last run.`,
    );
  } else if (effectiveMs === null) {
    const held = heldToClamp(endpoint);
    if (held) sentences.push(`The governor holds the next run to the ${held}.`);
  }
  sentences.push(`Governor limits: ${limits.join(' and ')} between runs.`);
  return sentences;
}

/** The interval between runs the rules ask for, or null when it is not an interval (cron, one-shot). */
function effectiveIntervalMs(endpoint: ScheduleFacts): number | null {
  if (endpoint.baselineCron !== null) return null;
  const source = endpoint.nextRunSource ?? fallbackSource(endpoint);
  if ((source === 'ai-interval' || source === 'rule-interval') && endpoint.hints.interval) {
    return endpoint.hints.interval.intervalMs;
  }
  if (source === 'baseline-interval' && endpoint.baselineIntervalMs !== null) {
    return endpoint.baselineIntervalMs * endpoint.backoffMultiplier;
  }
  return null;
}

/** For cron and one-shot runs: whether the planned gap after the last run sits exactly on a clamp. */
function heldToClamp(endpoint: ScheduleFacts): string | null {
  if (endpoint.pausedUntil || !endpoint.lastRunAt || !endpoint.nextRunAt) return null;
  const gapMs = Date.parse(endpoint.nextRunAt) - Date.parse(endpoint.lastRunAt);
  const near = (limit: number | null) => limit !== null && Math.abs(gapMs - limit) <= CLAMP_TOLERANCE_MS;
  if (near(endpoint.minIntervalMs))
    return `minimum interval (${formatDuration(endpoint.minIntervalMs!)} after the last run)`;
  if (near(endpoint.maxIntervalMs))
    return `maximum interval (${formatDuration(endpoint.maxIntervalMs!)} after the last run)`;
  return null;
}

function hintLabel(origin: Origin, kind: 'interval' | 'one-shot'): string {
  if (origin === 'rule') return kind === 'one-shot' ? 'One run asked for by a response rule' : 'Response rule interval';
  return origin === 'planner'
    ? `AI ${kind} hint (set by the planner)`
    : `${kind === 'interval' ? 'Interval' : 'One-shot'} hint (set by a user)`;
}

function reasonText(reason: string | null): string {
  return reason ? ` — reason: ${reason}` : '';
}

function failuresText(count: number): string {
  return count === 1 ? '1 failure in a row' : `${count} failures in a row`;
}

function capText(multiplier: number): string {
  return multiplier >= 32 ? ' (the cap)' : '';
}

function ordinal(n: number): string {
  return n === 2 ? '2nd' : `${n}th`;
}
