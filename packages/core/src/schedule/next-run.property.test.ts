/**
 * Property tests: random endpoints driven through random sequences of runs (successes and
 * failures, late starts), hints with TTLs, pauses, short waits and large clock jumps, the way the
 * scheduler would drive computeNextRun. Every decision is checked against the scheduling rules.
 */
import fc from 'fast-check';
import { computeNextRun } from './next-run.js';
import type { NextRun, ScheduleInput } from './next-run.js';
import { scheduleInput } from '../../../../test/schedule-input.js';

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** Starts near DST transitions (New York and Berlin, spring and autumn) and one ordinary day. */
const START_TIMES = [
  '2025-03-08T12:00:00Z',
  '2025-03-29T12:00:00Z',
  '2025-10-25T12:00:00Z',
  '2025-11-01T12:00:00Z',
  '2025-06-01T00:00:00Z',
];
const CRON_EXPRESSIONS = ['*/5 * * * *', '0 * * * *', '30 2 * * *', '0 */6 * * *', '15,45 1 * * *', '0 */10 * * * *'];
const TIMEZONES = ['UTC', 'America/New_York', 'Europe/Berlin'];

const baselineArb = fc.oneof(
  fc.integer({ min: SECOND_MS, max: HOUR_MS }).map((intervalMs) => ({
    baselineIntervalMs: intervalMs,
    baselineCron: null,
    timezone: 'UTC',
  })),
  fc.record({
    baselineIntervalMs: fc.constant(null),
    baselineCron: fc.constantFrom(...CRON_EXPRESSIONS),
    timezone: fc.constantFrom(...TIMEZONES),
  }),
);

/** min <= max when both are set (the API validates that). */
const boundsArb = fc
  .tuple(
    fc.option(fc.integer({ min: SECOND_MS, max: 10 * MINUTE_MS })),
    fc.option(fc.integer({ min: 10 * SECOND_MS, max: 2 * HOUR_MS })),
  )
  .map(([min, max]) => ({
    minIntervalMs: min,
    maxIntervalMs: min !== null && max !== null ? Math.max(min, max) : max,
  }));

const endpointArb = fc
  .record({
    baseline: baselineArb,
    bounds: boundsArb,
    start: fc.constantFrom(...START_TIMES),
    startOffsetMs: fc.integer({ min: 0, max: 2 * DAY_MS }),
  })
  .map(({ baseline, bounds, start, startOffsetMs }): ScheduleInput => ({
    ...baseline,
    ...bounds,
    failureCount: 0,
    lastScheduledAt: null,
    lastRunAt: null,
    createdAt: new Date(Date.parse(start) + startOffsetMs),
    pausedUntil: null,
    hintIntervalMs: null,
    hintIntervalExpiresAt: null,
    hintOneShotAt: null,
    hintOneShotExpiresAt: null,
  }));

const commandArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('run' as const),
      latenessMs: fc.integer({ min: 0, max: 5 * SECOND_MS }),
      failed: fc.boolean(),
      clearsOneShot: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('interval-hint' as const),
      intervalMs: fc.integer({ min: SECOND_MS, max: 30 * MINUTE_MS }),
      ttlMs: fc.integer({ min: MINUTE_MS, max: 2 * HOUR_MS }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('one-shot' as const),
      offsetMs: fc.integer({ min: -HOUR_MS, max: 2 * HOUR_MS }),
      ttlMs: fc.integer({ min: MINUTE_MS, max: 2 * HOUR_MS }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear-hints' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('pause' as const),
      durationMs: fc.option(fc.integer({ min: MINUTE_MS, max: 3 * HOUR_MS })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 2 * HOUR_MS }) }),
  },
  {
    weight: 1,
    // Longer than any backed-off baseline (32 x 1 day for a daily cron), so a run is always due.
    arbitrary: fc.record({
      kind: fc.constant('jump' as const),
      ms: fc.integer({ min: 40 * DAY_MS, max: 400 * DAY_MS }),
      failed: fc.boolean(),
    }),
  },
);

/** computeNextRun, with every rule that must hold for its answer checked. */
function checkedNextRun(input: ScheduleInput, now: Date): NextRun {
  const next = computeNextRun(input, now)!;
  const nextMs = next.nextRunAt.getTime();
  const { pausedUntil, lastRunAt, minIntervalMs, maxIntervalMs } = input;

  if (pausedUntil !== null && pausedUntil > now) {
    // The pause end, or the minIntervalMs floor when that is later (never cut by maxIntervalMs).
    const floorMs = lastRunAt !== null && minIntervalMs !== null ? lastRunAt.getTime() + minIntervalMs : 0;
    expect(nextMs).toBe(Math.max(pausedUntil.getTime(), floorMs));
    expect(next.explanation.rule).toBe('paused');
  } else {
    expect(next.explanation.rule).not.toBe('paused');
    if (lastRunAt !== null && minIntervalMs !== null) {
      expect(nextMs).toBeGreaterThanOrEqual(lastRunAt.getTime() + minIntervalMs);
    }
    if (lastRunAt !== null && maxIntervalMs !== null) {
      expect(nextMs).toBeLessThanOrEqual(Math.max(now.getTime(), lastRunAt.getTime() + maxIntervalMs));
    }
  }

  // Hints never drive a run at or after their expiry, and never once expired.
  const intervalHintExpiry = input.hintIntervalExpiresAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  const oneShotExpiry = input.hintOneShotExpiresAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  if (next.source === 'ai-interval') {
    expect(input.baselineCron).toBeNull();
    expect(nextMs).toBeLessThan(intervalHintExpiry);
  }
  if (next.source === 'ai-oneshot') expect(nextMs).toBeLessThan(oneShotExpiry);
  if (intervalHintExpiry <= now.getTime()) expect(next.source).not.toBe('ai-interval');
  if (oneShotExpiry <= now.getTime()) expect(next.source).not.toBe('ai-oneshot');

  // Every planned time is used once: nothing is planned at or before the previous planned time.
  if (input.lastScheduledAt !== null) expect(nextMs).toBeGreaterThan(input.lastScheduledAt.getTime());

  if (next.source === 'baseline-cron') expect(input.baselineCron).not.toBeNull();
  if (next.source === 'baseline-interval') expect(input.baselineCron).toBeNull();
  return next;
}

/** What the executor records after a run planned by `next` started at `startedAt`. */
function recordRun(
  input: ScheduleInput,
  next: NextRun,
  startedAt: Date,
  failed: boolean,
  clearsOneShot = false,
): ScheduleInput {
  const isOneShotRun = next.source === 'ai-oneshot';
  return {
    ...input,
    lastScheduledAt: next.nextRunAt,
    lastRunAt: startedAt,
    failureCount: failed ? input.failureCount + 1 : 0,
    // The scheduler clears a one-shot once it ran; sometimes it fails to, which must be harmless.
    hintOneShotAt: isOneShotRun && clearsOneShot ? null : input.hintOneShotAt,
    hintOneShotExpiresAt: isOneShotRun && clearsOneShot ? null : input.hintOneShotExpiresAt,
  };
}

type Command = typeof commandArb extends fc.Arbitrary<infer C> ? C : never;

/** Applies one command; returns the new state and clock. */
function applyCommand(input: ScheduleInput, now: Date, command: Command): [ScheduleInput, Date] {
  const nowMs = now.getTime();
  switch (command.kind) {
    case 'run': {
      const next = checkedNextRun(input, now);
      const startedAt = new Date(Math.max(nowMs, next.nextRunAt.getTime()) + command.latenessMs);
      if (next.explanation.rule === 'paused' && input.pausedUntil !== null) {
        expect(startedAt.getTime()).toBeGreaterThanOrEqual(input.pausedUntil.getTime());
      }
      return [recordRun(input, next, startedAt, command.failed, command.clearsOneShot), startedAt];
    }
    case 'interval-hint':
      return [
        { ...input, hintIntervalMs: command.intervalMs, hintIntervalExpiresAt: new Date(nowMs + command.ttlMs) },
        now,
      ];
    case 'one-shot':
      return [
        {
          ...input,
          hintOneShotAt: new Date(nowMs + command.offsetMs),
          hintOneShotExpiresAt: new Date(nowMs + command.ttlMs),
        },
        now,
      ];
    case 'clear-hints':
      return [
        {
          ...input,
          hintIntervalMs: null,
          hintIntervalExpiresAt: null,
          hintOneShotAt: null,
          hintOneShotExpiresAt: null,
        },
        now,
      ];
    case 'pause':
      return [
        { ...input, pausedUntil: command.durationMs === null ? null : new Date(nowMs + command.durationMs) },
        now,
      ];
    case 'wait':
      checkedNextRun(input, now);
      return [input, new Date(nowMs + command.ms)];
    case 'jump': {
      // Downtime: the clock jumps far ahead; the scheduler runs whatever is due, without the clock
      // moving, until nothing is due. All missed slots must collapse into exactly one run.
      const jumpedTo = new Date(nowMs + command.ms);
      let state = input;
      let runs = 0;
      for (let attempt = 0; attempt < 5; attempt++) {
        const next = checkedNextRun(state, jumpedTo);
        if (next.nextRunAt > jumpedTo) break;
        state = recordRun(state, next, jumpedTo, command.failed);
        runs++;
      }
      expect(runs).toBe(1);
      return [state, jumpedTo];
    }
  }
}

describe('computeNextRun under random operation', () => {
  it('keeps clamps, pauses and hint TTLs, and catches up with one run', () => {
    fc.assert(
      fc.property(endpointArb, fc.array(commandArb, { minLength: 1, maxLength: 30 }), (endpoint, commands) => {
        let input = endpoint;
        let now = endpoint.createdAt;
        for (const command of commands) [input, now] = applyCommand(input, now, command);
      }),
      { numRuns: 120 },
    );
  });

  it('catches up after downtime with exactly one run, whatever the state before it', () => {
    const stateArb = fc.record({
      failureCount: fc.integer({ min: 0, max: 7 }),
      sinceCreatedMs: fc.integer({ min: 0, max: 2 * DAY_MS }),
      // Late starts up to several intervals (a late catch-up or one-shot run).
      latenessMs: fc.integer({ min: 0, max: 3 * HOUR_MS }),
      downtimeMs: fc.integer({ min: 40 * DAY_MS, max: 400 * DAY_MS }),
      // A one-shot placed around the last run, still active after the downtime.
      oneShotOffsetMs: fc.option(fc.integer({ min: -HOUR_MS, max: 3 * HOUR_MS })),
      intervalHintMs: fc.option(fc.integer({ min: SECOND_MS, max: 30 * MINUTE_MS })),
      outcomes: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    });
    fc.assert(
      fc.property(endpointArb, stateArb, (endpoint, state) => {
        const lastScheduledMs = endpoint.createdAt.getTime() + state.sinceCreatedMs;
        const now = new Date(lastScheduledMs + state.latenessMs + state.downtimeMs);
        const stillActive = new Date(now.getTime() + HOUR_MS);
        let input: ScheduleInput = {
          ...endpoint,
          failureCount: state.failureCount,
          lastScheduledAt: new Date(lastScheduledMs),
          lastRunAt: new Date(lastScheduledMs + state.latenessMs),
          hintOneShotAt: state.oneShotOffsetMs === null ? null : new Date(lastScheduledMs + state.oneShotOffsetMs),
          hintOneShotExpiresAt: state.oneShotOffsetMs === null ? null : stillActive,
          hintIntervalMs: state.intervalHintMs,
          hintIntervalExpiresAt: state.intervalHintMs === null ? null : stillActive,
        };
        let runs = 0;
        for (const failed of state.outcomes) {
          const next = checkedNextRun(input, now);
          if (next.nextRunAt > now) break;
          input = recordRun(input, next, now, failed);
          runs++;
        }
        expect(runs).toBe(1);
      }),
      { numRuns: 300 },
    );
  });

  it('does not drift: interval runs stay on the planned grid however late they start', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: SECOND_MS, max: HOUR_MS }),
        fc.array(fc.double({ min: 0, max: 0.99, noNaN: true }), { minLength: 1, maxLength: 50 }),
        (intervalMs, latenessFractions) => {
          const createdAt = new Date('2025-01-15T12:00:00Z');
          let input = scheduleInput({ baselineIntervalMs: intervalMs, createdAt });
          let now = createdAt;
          latenessFractions.forEach((fraction, index) => {
            const next = computeNextRun(input, now)!;
            // The first run is due at creation; every later one on the grid createdAt + k × interval.
            expect(next.nextRunAt.getTime()).toBe(createdAt.getTime() + index * intervalMs);
            now = new Date(next.nextRunAt.getTime() + Math.floor(fraction * intervalMs));
            input = recordRun(input, next, now, false);
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});
