import {
  MAX_MISSED_RUNS,
  MISSED_SLOT_GRACE_MS,
  baselineSlotsBetween,
  nextCronSlotMissing,
  nextIntervalSlotMissing,
} from './slots.js';

const at = (iso: string) => new Date(iso);
const MINUTE = 60_000;

describe('missed runs of an interval', () => {
  const anchor = at('2026-11-01T10:00:00Z');
  const lastRunAt = at('2026-11-01T10:00:00.050Z');
  const now = at('2026-11-01T10:10:30Z');

  it('latest collapses the missed slots into the latest one', () => {
    expect(nextIntervalSlotMissing(anchor, MINUTE, lastRunAt, now, 'latest')).toEqual(at('2026-11-01T10:10:00Z'));
  });
  it('skip runs none of them: the next slot after now', () => {
    expect(nextIntervalSlotMissing(anchor, MINUTE, lastRunAt, now, 'skip')).toEqual(at('2026-11-01T10:11:00Z'));
  });
  it('skip still runs a slot a moment late', () => {
    const late = new Date(anchor.getTime() + MINUTE + MISSED_SLOT_GRACE_MS / 2);
    expect(nextIntervalSlotMissing(anchor, MINUTE, lastRunAt, late, 'skip')).toEqual(at('2026-11-01T10:01:00Z'));
  });
  it('all runs the oldest missed slot, even after a later catch-up run started', () => {
    expect(nextIntervalSlotMissing(anchor, MINUTE, now, now, 'all')).toEqual(at('2026-11-01T10:01:00Z'));
  });
  it(`all keeps the ${MAX_MISSED_RUNS} most recent missed slots`, () => {
    const later = new Date(anchor.getTime() + 250 * MINUTE + 1);
    expect(nextIntervalSlotMissing(anchor, MINUTE, lastRunAt, later, 'all')).toEqual(
      new Date(anchor.getTime() + (250 - MAX_MISSED_RUNS + 1) * MINUTE),
    );
  });
  it('all plans the next slot as usual when none is missed', () => {
    const soon = at('2026-11-01T10:00:30Z');
    expect(nextIntervalSlotMissing(anchor, MINUTE, lastRunAt, soon, 'all')).toEqual(at('2026-11-01T10:01:00Z'));
  });
});

describe('missed runs of a cron', () => {
  const anchor = at('2026-11-01T10:00:00Z');
  const lastRunAt = at('2026-11-01T10:00:00.050Z');
  const now = at('2026-11-01T10:10:30Z');
  const run = (missed: 'latest' | 'skip' | 'all', last = lastRunAt, when = now) =>
    nextCronSlotMissing('* * * * *', 'UTC', anchor, 1, last, when, missed);

  it('latest, skip and all', () => {
    expect(run('latest')).toEqual(at('2026-11-01T10:10:00Z'));
    expect(run('skip')).toEqual(at('2026-11-01T10:11:00Z'));
    expect(run('all', now)).toEqual(at('2026-11-01T10:01:00Z'));
  });
  it(`all keeps the ${MAX_MISSED_RUNS} most recent missed occurrences`, () => {
    const later = new Date(anchor.getTime() + 250 * MINUTE + 1);
    expect(run('all', lastRunAt, later)).toEqual(new Date(anchor.getTime() + (250 - MAX_MISSED_RUNS + 1) * MINUTE));
  });
});

describe('baselineSlotsBetween', () => {
  const endpoint = {
    baselineCron: null,
    baselineIntervalMs: 10 * MINUTE,
    timezone: 'UTC',
    lastScheduledAt: at('2026-11-01T10:05:00Z'),
    createdAt: at('2026-10-01T00:00:00Z'),
  };
  it("extends an interval's current slots backwards, both ends included", () => {
    expect(baselineSlotsBetween(endpoint, at('2026-11-01T09:15:00Z'), at('2026-11-01T09:45:00Z'), 10)).toEqual([
      at('2026-11-01T09:15:00Z'),
      at('2026-11-01T09:25:00Z'),
      at('2026-11-01T09:35:00Z'),
      at('2026-11-01T09:45:00Z'),
    ]);
  });
  it("lists a cron's occurrences in its time zone, at most max", () => {
    const cron = { ...endpoint, baselineCron: '0 9 * * *', timezone: 'Europe/Berlin', baselineIntervalMs: null };
    expect(baselineSlotsBetween(cron, at('2026-11-01T00:00:00Z'), at('2026-11-05T00:00:00Z'), 3)).toEqual([
      at('2026-11-01T08:00:00Z'),
      at('2026-11-02T08:00:00Z'),
      at('2026-11-03T08:00:00Z'),
    ]);
  });
});
