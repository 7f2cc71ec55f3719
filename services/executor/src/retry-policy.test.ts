import type { HttpOutcome } from './http/index.js';
import {
  backoffDelayMs,
  executionBudgetMs,
  isRetryable,
  nextWait,
  overrunNote,
  parseRetryAfterMs,
} from './retry-policy.js';

const settings = { attempts: 3, backoffBaseMs: 1000, backoffCapMs: 5000 };
const now = new Date('2026-11-23T12:00:00.000Z');

const failed = (errorKind: HttpOutcome['errorKind'], statusCode: number | null): HttpOutcome => ({
  status: 'failed',
  statusCode,
  durationMs: 10,
  startedAt: now,
  completedAt: now,
  responseBody: null,
  responseFormat: null,
  responseTruncated: false,
  responseBodyAltered: false,
  responseSizeBytes: null,
  errorKind,
  errorMessage: 'failed',
  finalUrl: null,
});

describe('isRetryable', () => {
  it.each([
    ['timeout', null, true],
    ['network', null, true],
    ['http_status', 500, true],
    ['http_status', 503, true],
    ['http_status', 429, true],
    ['http_status', 404, false],
    ['http_status', 400, false],
    ['http_status', 302, false], // too many redirects
    ['blocked', null, false],
    ['invalid_request', null, false],
  ] as const)('%s %s → %s', (kind, code, expected) => {
    expect(isRetryable(failed(kind, code))).toBe(expected);
  });

  it('a success is final', () => {
    expect(isRetryable({ ...failed(null, 200), status: 'success' })).toBe(false);
  });
});

it('backs off exponentially from the base, capped', () => {
  expect([1, 2, 3, 4, 5].map((retry) => backoffDelayMs(settings, retry))).toEqual([1000, 2000, 4000, 5000, 5000]);
});

describe('parseRetryAfterMs', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfterMs('1', now)).toBe(1000);
    expect(parseRetryAfterMs(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfterMs('Mon, 23 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Mon, 23 Nov 2026 11:00:00 GMT', now)).toBe(0); // past: at once
  });

  it('ignores what it cannot read', () => {
    for (const value of [null, undefined, '', '-1', '1.5', 'soon', 'tomorrow']) {
      expect(parseRetryAfterMs(value, now)).toBeNull();
    }
  });
});

describe('nextWait', () => {
  it('waits the backoff, or longer when Retry-After asks, within the cap', () => {
    expect(nextWait(settings, 1, null)).toEqual({ kind: 'wait', waitMs: 1000 });
    expect(nextWait(settings, 2, 500)).toEqual({ kind: 'wait', waitMs: 2000 });
    expect(nextWait(settings, 1, 4000)).toEqual({ kind: 'wait', waitMs: 4000 });
  });

  it('stops after the last attempt, and on a Retry-After beyond the cap', () => {
    expect(nextWait(settings, 4, null)).toEqual({ kind: 'stop', note: 'retries exhausted: 4 attempts' });
    const stop = nextWait(settings, 1, 5001);
    expect(stop.kind).toBe('stop');
    expect(stop.kind === 'stop' && stop.note).toContain('Retry-After asks for 5001 ms');
  });
});

it('lets an attempt start only if it can end, with its full timeout, by the deadline', () => {
  const deadline = { at: new Date(now.getTime() + 10_000), label: 'the next planned run' };
  expect(overrunNote(2, now, 4000, 6000, deadline)).toBeNull();
  expect(overrunNote(2, now, 4001, 6000, deadline)).toContain('attempt 2 (after a 4001 ms wait, up to timeoutMs 6000)');
});

it('budgets the lock for every attempt and wait at its cap, at most 55 minutes', () => {
  expect(executionBudgetMs({ timeoutMs: 30_000, retry: null })).toBe(30_000);
  expect(executionBudgetMs({ timeoutMs: 30_000, retry: settings })).toBe(4 * 30_000 + 3 * 5000);
  expect(
    executionBudgetMs({ timeoutMs: 300_000, retry: { attempts: 5, backoffBaseMs: 60_000, backoffCapMs: 300_000 } }),
  ).toBe(3_300_000);
});
