import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { computeNextRun, type ScheduleInput } from './next-run.js';
import {
  JITTER_MAX_MS,
  applyJitter,
  computeJitteredNextRun,
  jitterOffsetMs,
  plannedAnchor,
  type JitteredRun,
} from './jitter.js';
import { scheduleInput, t } from '../../../../test/schedule-input.js';

const SEC = 1000;
const MIN = 60 * SEC;

/** An endpoint at a 10 min interval. */
const buildInput = (overrides: Partial<ScheduleInput> = {}): ScheduleInput =>
  scheduleInput({ baselineIntervalMs: 10 * MIN, ...overrides });

const RUN_ID = '01937a6e-0000-7000-8000-000000000001';
const OTHER_RUN_ID = '01937a6e-0000-7000-8000-000000000002';

describe('jitterOffsetMs', () => {
  it('is SHA-256 of the run id (first 48 bits) modulo jitterMs + 1', () => {
    const value = createHash('sha256').update(RUN_ID).digest().readUIntBE(0, 6);
    expect(jitterOffsetMs(RUN_ID, 30 * SEC)).toBe(value % (30 * SEC + 1));
  });

  it.each([
    ['no jitter', 0, 0],
    ['negative (never stored, still safe)', -5, 0],
  ])('%s: 0', (_name, jitterMs, offset) => {
    expect(jitterOffsetMs(RUN_ID, jitterMs)).toBe(offset);
  });

  it('is fixed per run id and differs between run ids', () => {
    expect(jitterOffsetMs(RUN_ID, JITTER_MAX_MS)).toBe(jitterOffsetMs(RUN_ID, JITTER_MAX_MS));
    expect(jitterOffsetMs(RUN_ID, JITTER_MAX_MS)).not.toBe(jitterOffsetMs(OTHER_RUN_ID, JITTER_MAX_MS));
  });

  it('stays within [0, jitterMs] (property) and spreads over the range', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.integer({ min: 1, max: JITTER_MAX_MS }), (runId, jitterMs) => {
        const offset = jitterOffsetMs(runId, jitterMs);
        return Number.isInteger(offset) && offset >= 0 && offset <= jitterMs;
      }),
    );
    const offsets = Array.from({ length: 400 }, (_, i) => jitterOffsetMs(`run-${i}`, 1000));
    expect(Math.min(...offsets)).toBeLessThan(100);
    expect(Math.max(...offsets)).toBeGreaterThan(900);
  });
});

describe('applyJitter', () => {
  const offset = jitterOffsetMs(RUN_ID, 30 * SEC);
  beforeAll(() => expect(offset).toBeGreaterThan(0)); // the cases below need a non-zero offset

  type Case = [string, Partial<ScheduleInput>, string, number, string | number];
  // [name, input, now, jitterMs, expected nextRunAt: ISO/'HH:MM[:SS]' or ms after the planned time]
  const cases: Case[] = [
    ['no jitter: the planned time', { lastScheduledAt: t('12:00'), lastRunAt: t('12:00') }, '12:05', 0, 0],
    ['interval: planned + offset', { lastScheduledAt: t('12:00'), lastRunAt: t('12:00') }, '12:05', 30 * SEC, offset],
    ['first interval run (at creation): creation + offset', {}, '12:00', 30 * SEC, offset],
    [
      'cron: the occurrence + offset',
      { baselineIntervalMs: null, baselineCron: '0 * * * *', lastScheduledAt: t('12:00'), lastRunAt: t('12:00') },
      '12:30',
      30 * SEC,
      offset,
    ],
    [
      'max clamp: cut to lastRunAt + maxIntervalMs',
      { lastScheduledAt: t('12:00'), lastRunAt: t('12:00'), maxIntervalMs: 10 * MIN },
      '12:05',
      30 * SEC,
      '12:10',
    ],
    [
      'max clamp partly used: cut at the ceiling',
      { lastScheduledAt: t('12:00'), lastRunAt: t('12:00'), maxIntervalMs: 10 * MIN + 1 },
      '12:05',
      30 * SEC,
      Math.min(offset, 1),
    ],
    [
      'min clamp: the clamped time + offset (moving later keeps the floor)',
      { baselineIntervalMs: MIN, lastScheduledAt: t('12:00'), lastRunAt: t('12:00'), minIntervalMs: 5 * MIN },
      '12:00:30',
      30 * SEC,
      offset,
    ],
    [
      'paused: the pause end exactly',
      { lastScheduledAt: t('12:00'), lastRunAt: t('12:00'), pausedUntil: t('13:00') },
      '12:05',
      30 * SEC,
      '13:00',
    ],
    [
      'one-shot hint: exactly its time',
      {
        lastScheduledAt: t('12:00'),
        lastRunAt: t('12:00'),
        hintOneShotAt: t('12:07'),
        hintOneShotExpiresAt: t('13:00'),
      },
      '12:05',
      30 * SEC,
      '12:07',
    ],
    [
      'interval hint: planned + offset',
      {
        lastScheduledAt: t('12:00'),
        lastRunAt: t('12:00'),
        hintIntervalMs: 2 * MIN,
        hintIntervalExpiresAt: t('13:00'),
      },
      '12:01',
      30 * SEC,
      offset,
    ],
    [
      'interval hint: stays before its expiry',
      {
        lastScheduledAt: t('12:00'),
        lastRunAt: t('12:00'),
        hintIntervalMs: 2 * MIN,
        hintIntervalExpiresAt: new Date(t('12:02').getTime() + 1),
      },
      '12:01',
      30 * SEC,
      0,
    ],
    [
      'overdue slot past the max ceiling: due now, not later',
      { lastScheduledAt: t('12:00'), lastRunAt: t('12:00'), maxIntervalMs: 10 * MIN },
      '14:00',
      30 * SEC,
      '14:00',
    ],
  ];

  it.each(cases)('%s', (_name, overrides, now, jitterMs, result) => {
    const input = buildInput(overrides);
    const next = computeNextRun(input, t(now))!;
    const jittered = applyJitter(next, input, jitterMs, RUN_ID, t(now));
    const expectedAt = typeof result === 'number' ? new Date(next.nextRunAt.getTime() + result) : t(result);
    expect(jittered.nextRunAt).toEqual(expectedAt);
    expect(jittered.plannedAt).toEqual(next.nextRunAt);
    expect(jittered.jitterOffsetMs).toBe(expectedAt.getTime() - next.nextRunAt.getTime());
    expect(jittered.source).toBe(next.source);
    expect(jittered.jitterOffsetMs).toBeGreaterThanOrEqual(0);
    expect(jittered.jitterOffsetMs).toBeLessThanOrEqual(jitterMs);
  });
});

describe('plannedAnchor and computeJitteredNextRun', () => {
  const jitterMs = 2 * MIN;

  it('takes the last run’s offset back off lastScheduledAt', () => {
    const jitteredAt = new Date(t('12:00').getTime() + jitterOffsetMs(RUN_ID, jitterMs));
    expect(plannedAnchor(jitteredAt, RUN_ID, jitterMs)).toEqual(t('12:00'));
    expect(plannedAnchor(jitteredAt, null, jitterMs)).toEqual(jitteredAt);
    expect(plannedAnchor(jitteredAt, RUN_ID, 0)).toEqual(jitteredAt);
    expect(plannedAnchor(null, RUN_ID, jitterMs)).toBeNull();
  });

  it('without jitter equals computeNextRun', () => {
    const input = buildInput({ lastScheduledAt: t('12:00'), lastRunAt: t('12:00:01') });
    const result = computeJitteredNextRun(
      { ...input, jitterMs: 0, lastScheduledRunId: RUN_ID, lastScheduledRunSource: 'baseline-interval' },
      OTHER_RUN_ID,
      t('12:01'),
    )!;
    expect(result.nextRunAt).toEqual(computeNextRun(input, t('12:01'))!.nextRunAt);
  });

  it('a chain of 100 interval runs stays on the planned grid: jitter never accumulates', () => {
    let lastRun: { id: string; at: Date } | null = null;
    for (let i = 0; i < 100; i++) {
      const runId = `run-${i}`;
      const now = lastRun?.at ?? t('12:00');
      const next: JitteredRun = computeJitteredNextRun(
        {
          ...buildInput({ lastScheduledAt: lastRun?.at ?? null, lastRunAt: lastRun?.at ?? null }),
          jitterMs,
          lastScheduledRunId: lastRun?.id ?? null,
          lastScheduledRunSource: lastRun ? 'baseline-interval' : null,
        },
        runId,
        now,
      )!;
      // Planned slot i is creation + i × 10 min; the run lands within [slot, slot + jitterMs].
      expect(next.plannedAt).toEqual(new Date(t('12:00').getTime() + i * 10 * MIN));
      expect(next.nextRunAt.getTime() - next.plannedAt.getTime()).toBe(jitterOffsetMs(runId, jitterMs));
      lastRun = { id: runId, at: next.nextRunAt };
    }
  });

  it('does not un-jitter a one-shot run (its time was exact)', () => {
    const oneShotAt = t('12:07');
    const next = computeJitteredNextRun(
      {
        ...buildInput({ lastScheduledAt: oneShotAt, lastRunAt: oneShotAt }),
        jitterMs,
        lastScheduledRunId: RUN_ID,
        lastScheduledRunSource: 'ai-oneshot',
      },
      OTHER_RUN_ID,
      oneShotAt,
    )!;
    expect(next.plannedAt).toEqual(t('12:17'));
  });
});
