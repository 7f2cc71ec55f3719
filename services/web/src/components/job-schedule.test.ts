import { describe, expect, it } from 'vitest';
import { describeSchedule } from './job-schedule';

describe('describeSchedule', () => {
  it.each([
    [{ baselineIntervalMs: 300_000, baselineCron: null, timezone: 'UTC', backoffMultiplier: 1 }, 'every 5 min'],
    [{ baselineIntervalMs: 90_000, baselineCron: null, timezone: 'UTC', backoffMultiplier: 1 }, 'every 1 min 30 s'],
    [
      { baselineIntervalMs: 60_000, baselineCron: null, timezone: 'UTC', backoffMultiplier: 4 },
      'every 1 min, backoff ×4',
    ],
    [
      { baselineIntervalMs: null, baselineCron: '0 * * * *', timezone: 'Europe/Paris', backoffMultiplier: 1 },
      'cron 0 * * * * (Europe/Paris)',
    ],
    [{ baselineIntervalMs: null, baselineCron: null, timezone: 'UTC', backoffMultiplier: 1 }, '—'],
  ])('%j → %s', (endpoint, words) => expect(describeSchedule(endpoint)).toBe(words));
});
