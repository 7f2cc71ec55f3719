/**
 * Upcoming runs: the next planned times of an endpoint, from the scheduling rules as they stand now
 * (next-run.ts: pause, one-shot and interval hints, backoff, the clamps, cron in the endpoint's zone;
 * jitter.ts). Pure: the policy is iterated with a virtual run at each planned time (it starts on time,
 * or at `now` when overdue; the failure count stays as it is, so a backoff in force stays in force).
 *
 * Jitter: the first run's offset comes from its run id when it is known (the endpoint's planned run);
 * later runs have no id yet, so their time is the planned time, and each starts up to jitterMs later.
 *
 * Calendars (calendar.ts) hold as the rules apply them: a run a window moved names it (`calendar`), and
 * the list ends early when the active period ends.
 */
import type { CalendarHold } from './calendar.js';
import { computeJitteredNextRun, type JitterInput } from './jitter.js';
import { computeNextRun, type RunSource, type ScheduleInput } from './next-run.js';

export const UPCOMING_DEFAULT_COUNT = 10;
export const UPCOMING_MAX_COUNT = 100;

export interface UpcomingRun {
  at: Date;
  source: RunSource;
  /** The calendar window that moved this run (absent: none did). */
  calendar?: CalendarHold;
}

export function computeUpcomingRuns(
  input: ScheduleInput & Pick<JitterInput, 'jitterMs'> & Partial<JitterInput>,
  count: number,
  now: Date,
  firstRunId: string | null = null,
): UpcomingRun[] {
  const runs: UpcomingRun[] = [];
  let state: ScheduleInput = input;
  let virtualNow = now;
  for (let i = 0; i < count; i++) {
    const next =
      i === 0 && firstRunId !== null && input.jitterMs > 0
        ? computeJitteredNextRun(
            {
              ...input,
              lastScheduledRunId: input.lastScheduledRunId ?? null,
              lastScheduledRunSource: input.lastScheduledRunSource ?? null,
            },
            firstRunId,
            now,
          )
        : computeNextRun(state, virtualNow);
    if (next === null) break;
    const calendar = next.explanation.calendar;
    runs.push(
      calendar ? { at: next.nextRunAt, source: next.source, calendar } : { at: next.nextRunAt, source: next.source },
    );
    const startedAt = next.nextRunAt > virtualNow ? next.nextRunAt : virtualNow;
    // The next slot is anchored on the planned time (jitter.ts plannedAnchor), the clamps on the start.
    const plannedAt = 'plannedAt' in next ? (next.plannedAt as Date) : next.nextRunAt;
    state = { ...state, lastScheduledAt: plannedAt, lastRunAt: startedAt };
    virtualNow = startedAt;
  }
  return runs;
}
