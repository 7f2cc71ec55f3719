/**
 * An endpoint's schedule inputs for the schedule tests of @kairos/core: an interval endpoint (60 s)
 * created at 12:00 on 2025-01-15 UTC that has not run yet, nothing else set. A test overrides what it
 * is about.
 */
import type { ScheduleInput } from '@kairos/core';

/** 'HH:MM' or 'HH:MM:SS' on 2025-01-15 UTC; or a full ISO string. */
export const t = (time: string): Date => new Date(time.includes('T') ? time : `2025-01-15T${time.padEnd(8, ':00')}Z`);

export function scheduleInput(overrides: Partial<ScheduleInput> = {}): ScheduleInput {
  return {
    baselineIntervalMs: 60_000,
    baselineCron: null,
    timezone: 'UTC',
    minIntervalMs: null,
    maxIntervalMs: null,
    failureCount: 0,
    lastScheduledAt: null,
    lastRunAt: null,
    createdAt: t('12:00'),
    pausedUntil: null,
    hintIntervalMs: null,
    hintIntervalExpiresAt: null,
    hintOneShotAt: null,
    hintOneShotExpiresAt: null,
    ...overrides,
  };
}
