export { backoffMultiplier } from './backoff.js';
export { isValidTimezone, latestCronTimeAtOrBefore, nextCronTime, parseCron } from './cron.js';
export type { CronCheck } from './cron.js';
export { isHintActive } from './hints.js';
export { JITTER_MAX_MS, applyJitter, computeJitteredNextRun, jitterOffsetMs, plannedAnchor } from './jitter.js';
export type { JitterInput, JitteredRun } from './jitter.js';
export { computeNextRun, describeOneShot } from './next-run.js';
export type {
  ClampKind,
  NextRun,
  NextRunExplanation,
  OneShotState,
  RunSource,
  ScheduleInput,
  ScheduleRule,
} from './next-run.js';
export {
  MAX_MISSED_RUNS,
  MISSED_RUNS,
  MISSED_SLOT_GRACE_MS,
  baselineSlotsBetween,
  nextCronSlot,
  nextCronSlotMissing,
  nextIntervalSlot,
  nextIntervalSlotMissing,
} from './slots.js';
export type { MissedRuns } from './slots.js';
export { DISPATCH_LEAD_MS, MAX_DISPATCH_WAIT_MS } from './dispatch-lead.js';
export { UPCOMING_DEFAULT_COUNT, UPCOMING_MAX_COUNT, computeUpcomingRuns } from './upcoming.js';
export type { UpcomingRun } from './upcoming.js';
export {
  BLACKOUTS_MAX,
  BLACKOUT_DURATION_MAX_MS,
  BLACKOUT_DURATION_MIN_MS,
  toCalendarHoldRecord,
  findCalendarHold,
  hasCalendar,
} from './calendar.js';
export type { BlackoutWindow, CalendarHold, CalendarInput } from './calendar.js';
