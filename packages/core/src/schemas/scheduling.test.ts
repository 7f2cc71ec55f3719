import {
  checkIntervalHint,
  checkOneShotHint,
  checkPause,
  clampIntervalMs,
  hintExpiresAt,
  type HintTarget,
} from './scheduling.js';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);
const MINUTE = 60_000;

const intervalEndpoint: HintTarget = { baselineCron: null, minIntervalMs: null, maxIntervalMs: null, lastRunAt: null };

describe('clampIntervalMs', () => {
  it.each([
    [30_000, null, null, 30_000],
    [1_000, 5_000, null, 5_000],
    [600_000, null, 120_000, 120_000],
    [60_000, 5_000, 120_000, 60_000],
    // min > max cannot be stored, but if it were, the safety floor wins (as in computeNextRun).
    [60_000, 90_000, 30_000, 90_000],
  ])('%i with min %p and max %p → %i', (intervalMs, min, max, expected) => {
    expect(clampIntervalMs(intervalMs, min, max)).toBe(expected);
  });
});

describe('hintExpiresAt', () => {
  it.each([
    [30, 30 * MINUTE],
    [0.5, 30_000],
    [10_080, 10_080 * MINUTE],
    [1 / 3, 20_000],
  ])('%p minutes after now', (ttlMinutes, offsetMs) => {
    expect(hintExpiresAt(NOW, ttlMinutes)).toEqual(at(offsetMs));
  });
});

describe('checkPause', () => {
  it.each([
    ['null (resume)', null, true],
    ['a future time', at(1), true],
    ['now', at(0), false],
    ['a past time', at(-MINUTE), false],
  ])('%s', (_name, pausedUntil, ok) => {
    const check = checkPause(pausedUntil, NOW);
    expect(check.ok).toBe(ok);
    if (!check.ok) expect(check.issues[0]!.field).toBe('pausedUntil');
  });
});

describe('checkIntervalHint', () => {
  it('answers the interval, its clamped value and the expiry', () => {
    const check = checkIntervalHint(
      { ...intervalEndpoint, minIntervalMs: 10_000 },
      { intervalMs: 2_000, ttlMinutes: 15 },
      NOW,
    );
    expect(check).toEqual({
      ok: true,
      value: { intervalMs: 2_000, clampedIntervalMs: 10_000, expiresAt: at(15 * MINUTE) },
    });
  });

  it('refuses cron endpoints on the intervalMs field', () => {
    const check = checkIntervalHint(
      { ...intervalEndpoint, baselineCron: '*/5 * * * *' },
      { intervalMs: 2_000, ttlMinutes: 15 },
      NOW,
    );
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.issues[0]!.field).toBe('intervalMs');
      expect(check.issues[0]!.message).toMatch(/cron-scheduled endpoints do not support interval hints/);
    }
  });
});

interface Expected {
  ok: boolean;
  runAt?: number;
  field?: string;
}

describe('checkOneShotHint', () => {
  it.each<[string, HintTarget, number, number, Expected]>([
    ['a future time before the expiry', intervalEndpoint, 5 * MINUTE, 30, { ok: true, runAt: 5 * MINUTE }],
    ['a past time (as soon as possible: now)', intervalEndpoint, -5 * MINUTE, 30, { ok: true, runAt: 0 }],
    ['a time at the expiry', intervalEndpoint, 30 * MINUTE, 30, { ok: false, field: 'nextRunAt' }],
    ['a time after the expiry', intervalEndpoint, 31 * MINUTE, 30, { ok: false, field: 'nextRunAt' }],
    [
      'a min floor inside the TTL',
      { ...intervalEndpoint, minIntervalMs: 10 * MINUTE, lastRunAt: at(-MINUTE) },
      MINUTE,
      30,
      { ok: true, runAt: MINUTE },
    ],
    [
      'a min floor at the expiry',
      { ...intervalEndpoint, minIntervalMs: 31 * MINUTE, lastRunAt: at(-MINUTE) },
      MINUTE,
      30,
      { ok: false, field: 'ttlMinutes' },
    ],
    ['a cron endpoint', { ...intervalEndpoint, baselineCron: '0 3 * * *' }, MINUTE, 30, { ok: true, runAt: MINUTE }],
  ])('%s', (_name, target, offsetMs, ttlMinutes, expected) => {
    const check = checkOneShotHint(target, { nextRunAt: at(offsetMs), ttlMinutes }, NOW);
    if (expected.ok) {
      expect(check).toEqual({
        ok: true,
        value: { nextRunAt: at(expected.runAt!), expiresAt: at(ttlMinutes * MINUTE) },
      });
    } else {
      expect(check.ok).toBe(false);
      if (!check.ok) expect(check.issues[0]!.field).toBe(expected.field);
    }
  });
});
