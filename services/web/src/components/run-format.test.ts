import { describe, expect, it } from 'vitest';
import {
  bodyExcerpt,
  describeAttempt,
  describeLateness,
  describeRetry,
  formatResponseBody,
  isAiSource,
  sourceLabel,
} from './run-format';

describe('sourceLabel / isAiSource', () => {
  it.each([
    ['baseline-cron', 'baseline cron', false],
    ['baseline-interval', 'baseline interval', false],
    ['ai-interval', 'AI interval hint', true],
    ['ai-oneshot', 'AI one-shot hint', true],
    ['test', 'test', false],
    ['replay', 'replay', false],
  ])('%s → %s (AI: %s)', (source, label, isAi) => {
    expect(sourceLabel(source)).toBe(label);
    expect(isAiSource(source)).toBe(isAi);
  });
});

describe('describeLateness', () => {
  it.each([
    [0, 'on time'],
    [999, 'on time'],
    [1500, 'late by 2 s'],
    [95_000, 'late by 1 min 35 s'],
  ])('%d ms → %s', (ms, text) => expect(describeLateness(ms)).toBe(text));
});

describe('formatResponseBody', () => {
  it.each([
    [
      { responseBody: { ok: true, n: [1] }, responseFormat: 'json' as const },
      'json',
      '{\n  "ok": true,\n  "n": [\n    1\n  ]\n}',
    ],
    [{ responseBody: 'plain text', responseFormat: 'text' as const }, 'text', 'plain text'],
    [{ responseBody: '"quoted"', responseFormat: 'text' as const }, 'text', '"quoted"'],
    [{ responseBody: 42, responseFormat: 'json' as const }, 'json', '42'],
    [{ responseBody: null, responseFormat: 'empty' as const }, 'empty', ''],
    [{ responseBody: '', responseFormat: null }, 'empty', ''],
  ])('%o → %s', (run, kind, text) => expect(formatResponseBody(run)).toEqual({ kind, text }));
});

describe('bodyExcerpt', () => {
  it.each([
    [null, 5, ''],
    ['abc', 5, 'abc'],
    ['abcdefgh', 5, 'abcde…'],
    [{ a: 1 }, 100, '{\n  "a": 1\n}'],
  ])('%o (max %d) → %s', (body, max, text) => expect(bodyExcerpt(body, max)).toBe(text));
});

describe('retries', () => {
  it('describes the setting', () => {
    expect(describeRetry(null)).toBe('none (one call per run)');
    expect(describeRetry({ attempts: 2, backoffBaseMs: 1000, backoffCapMs: 30_000 })).toBe(
      '2 more calls, waiting 1 s then doubling, at most 30 s',
    );
  });

  it('describes an attempt and the wait after it', () => {
    const attempt = {
      attempt: 1,
      startedAt: '2026-03-01T12:00:00.000Z',
      durationMs: 40,
      statusCode: 503,
      errorKind: 'http_status',
      errorMessage: 'HTTP 503 Service Unavailable',
      retryAfterMs: 2000,
      nextAttemptInMs: 2000,
    };
    expect(describeAttempt(attempt)).toEqual({
      outcome: 'HTTP 503 Service Unavailable',
      next: 'retried after 2 s (Retry-After 2 s)',
    });
    expect(
      describeAttempt({
        ...attempt,
        statusCode: 200,
        errorKind: null,
        errorMessage: null,
        retryAfterMs: null,
        nextAttemptInMs: null,
      }),
    ).toEqual({ outcome: 'HTTP 200', next: '—' });
  });
});
