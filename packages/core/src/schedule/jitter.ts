/**
 * Jitter (opt-in per endpoint): each planned run moves later by an offset in
 * [0, jitterMs], so endpoints sharing a schedule (every hour on the hour) do not all fire at once.
 *
 * - The offset is a pure function of the run id (SHA-256 of the id, modulo jitterMs + 1): a retried
 *   delivery or a reconcile re-add of the same planned run keeps its time, and no clock or random
 *   source is involved.
 * - It applies to the baseline rules (cron, interval) and to interval hints. A pause end and a
 *   one-shot hint are exact times someone asked for, so they are not moved.
 * - Never outside the clamps (the scheduling rules): the jittered time is cut to the max clamp's
 *   ceiling (max(lastRunAt + maxIntervalMs, now)); the min clamp already holds for the planned time
 *   and moving later keeps it. An interval hint's run stays before the hint's expiry.
 * - The run's scheduledAt is the jittered time, and the next slot is computed from the planned time
 *   underneath: `plannedAnchor` takes the offset back off lastScheduledAt (only when the last run
 *   came from a jittered rule), so jitter does not add up
 *   from run to run (a 60 s interval with 10 s jitter still averages 60 s). It subtracts the offset
 *   the run id gives for the current jitterMs: after a change of jitterMs, or when a clamp had cut the
 *   offset, the anchor is off by at most jitterMs once; the clamps still hold.
 * - Never into a calendar window (calendar.ts): an offset that would start the run inside one, or at
 *   or after activeUntil, is cut to just before it.
 */
import { createHash } from 'node:crypto';
import { findCalendarHold, hasCalendar } from './calendar.js';
import { computeNextRun, type NextRun, type RunSource, type ScheduleInput } from './next-run.js';

/** Upper bound of an endpoint's jitterMs: one hour. */
export const JITTER_MAX_MS = 3_600_000;

/** The run sources whose planned time is jittered (not one-shots; a pause end keeps the resumed rule's source but is exact). */
const JITTERED_SOURCES: ReadonlySet<string> = new Set<RunSource>([
  'baseline-cron',
  'baseline-interval',
  'ai-interval',
  'rule-interval',
]);

export interface JitterInput {
  jitterMs: number;
  /** Id and source of the run recorded at lastScheduledAt; null when unknown (none, or a skipped slot). */
  lastScheduledRunId: string | null;
  lastScheduledRunSource: string | null;
}

/** The run's offset in [0, jitterMs] ms, fixed by its id. */
export function jitterOffsetMs(runId: string, jitterMs: number): number {
  if (!(jitterMs > 0)) return 0;
  // 48 bits of the digest: uniform enough for any jitterMs up to an hour (bias below 2^-26).
  const value = createHash('sha256').update(runId, 'utf8').digest().readUIntBE(0, 6);
  return value % (Math.floor(jitterMs) + 1);
}

/**
 * The planned (unjittered) time of the last scheduled run, to anchor the next slot on:
 * lastScheduledAt minus that run's offset. Unchanged without jitter or without the run's id.
 */
export function plannedAnchor(
  lastScheduledAt: Date | null,
  lastScheduledRunId: string | null,
  jitterMs: number,
): Date | null {
  if (lastScheduledAt === null || lastScheduledRunId === null || !(jitterMs > 0)) return lastScheduledAt;
  return new Date(lastScheduledAt.getTime() - jitterOffsetMs(lastScheduledRunId, jitterMs));
}

export interface JitteredRun extends NextRun {
  /** The policy's planned time before the offset. */
  plannedAt: Date;
  /** nextRunAt − plannedAt: the offset applied after the clamps. */
  jitterOffsetMs: number;
}

/** Moves `next` (the policy's result for `input` at `now`) by the run's offset, within the clamps. */
export function applyJitter(
  next: NextRun,
  input: ScheduleInput,
  jitterMs: number,
  runId: string,
  now: Date,
): JitteredRun {
  const plannedAt = next.nextRunAt;
  const rule = next.explanation.rule;
  const unchanged = { ...next, plannedAt, jitterOffsetMs: 0 };
  if (!(jitterMs > 0) || rule === 'paused' || rule === 'one-shot') return unchanged;
  let atMs = plannedAt.getTime() + jitterOffsetMs(runId, jitterMs);
  if (input.lastRunAt !== null && input.maxIntervalMs !== null) {
    atMs = Math.min(atMs, Math.max(input.lastRunAt.getTime() + input.maxIntervalMs, now.getTime()));
  }
  if (rule === 'interval-hint' && input.hintIntervalExpiresAt !== null) {
    atMs = Math.min(atMs, input.hintIntervalExpiresAt.getTime() - 1);
  }
  if (atMs > plannedAt.getTime() && hasCalendar(input)) atMs = cutToCalendar(input, plannedAt.getTime(), atMs);
  atMs = Math.max(atMs, plannedAt.getTime());
  return { ...next, nextRunAt: new Date(atMs), plannedAt, jitterOffsetMs: atMs - plannedAt.getTime() };
}

/** The latest start in (plannedMs, atMs] outside every window and before activeUntil (plannedMs when none). */
function cutToCalendar(input: ScheduleInput, plannedMs: number, atMs: number): number {
  const activeUntil = input.activeUntil ?? null;
  if (activeUntil !== null) atMs = Math.min(atMs, activeUntil.getTime() - 1);
  // Each cut moves before the start of a window holding the time: a few steps at most.
  for (let step = 0; step < 10 && atMs > plannedMs; step++) {
    const hold = findCalendarHold(input, input.timezone, new Date(atMs));
    if (hold === null) return atMs;
    atMs = (hold.from?.getTime() ?? plannedMs) - 1;
  }
  return plannedMs;
}

/**
 * The scheduler's next run with jitter: the policy (computeNextRun) anchored on the last run's
 * planned time, then moved by the new run's offset. With jitterMs 0 it is exactly computeNextRun.
 */
export function computeJitteredNextRun(
  input: ScheduleInput & JitterInput,
  runId: string,
  now: Date,
): JitteredRun | null {
  const { jitterMs, lastScheduledRunId, lastScheduledRunSource } = input;
  const isLastJittered = lastScheduledRunSource !== null && JITTERED_SOURCES.has(lastScheduledRunSource);
  const lastScheduledAt = plannedAnchor(input.lastScheduledAt, isLastJittered ? lastScheduledRunId : null, jitterMs);
  const next = computeNextRun({ ...input, lastScheduledAt }, now);
  return next && applyJitter(next, input, jitterMs, runId, now);
}
