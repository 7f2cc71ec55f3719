/**
 * How runs read to people: source labels (AI sources marked), lateness (startedAt − scheduledAt)
 * and the response body (pretty JSON when it is JSON, the text otherwise). Pure functions.
 */
import type { Schemas } from '../api/client';
import { formatDuration } from '../lib/time';

export type Run = Schemas['Run'];
export type RunAttempt = Schemas['RunAttempt'];

/** Starting this close to the planned time counts as on time (queue hand-off takes a few ms). */
const ON_TIME_MS = 1000;

const SOURCE_LABELS: Record<string, string> = {
  'baseline-cron': 'baseline cron',
  'baseline-interval': 'baseline interval',
  'ai-interval': 'AI interval hint',
  'ai-oneshot': 'AI one-shot hint',
  test: 'test',
  manual: 'run now',
  backfill: 'backfill',
};

/** Runs a hint (from the planner, or set by a user through the same hint operations) decided. */
export function isAiSource(source: string): boolean {
  return source.startsWith('ai-');
}

/** The source list is open-ended: unknown sources show as they are. */
export function sourceLabel(source: string): string {
  return SOURCE_LABELS[source] ?? source;
}

export function describeLateness(lateMs: number): string {
  if (lateMs < ON_TIME_MS) return 'on time';
  return `late by ${formatDuration(lateMs)}`;
}

export interface FormattedBody {
  kind: 'json' | 'text' | 'empty';
  text: string;
}

/** The body as stored: JSON pretty-printed, text as is, nothing as empty. */
export function formatResponseBody(run: Pick<Run, 'responseBody' | 'responseFormat'>): FormattedBody {
  const body = run.responseBody;
  if (body === null || body === undefined || body === '') return { kind: 'empty', text: '' };
  if (typeof body === 'string' && run.responseFormat !== 'json') return { kind: 'text', text: body };
  return { kind: 'json', text: JSON.stringify(body, null, 2) };
}

/** A short excerpt of a body for inline display (test results, tables). */
export function bodyExcerpt(body: unknown, maxChars = 500): string {
  if (body === null || body === undefined || body === '') return '';
  const text = typeof body === 'string' ? body : JSON.stringify(body, null, 2);
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}

/** A run's endpoint retry setting as a sentence (endpoint detail). */
export function describeRetry(retry: Schemas['Endpoint']['retry']): string {
  if (retry === null || retry === undefined) return 'none (one call per run)';
  const more = retry.attempts === 1 ? '1 more call' : `${retry.attempts} more calls`;
  return `${more}, waiting ${formatDuration(retry.backoffBaseMs)} then doubling, at most ${formatDuration(retry.backoffCapMs)}`;
}

/** One attempt's outcome and what followed it, for the run page's attempts table. */
export function describeAttempt(attempt: RunAttempt): { outcome: string; next: string } {
  const outcome =
    attempt.errorKind === null ? `HTTP ${attempt.statusCode ?? '—'}` : (attempt.errorMessage ?? attempt.errorKind);
  const asked = attempt.retryAfterMs === null ? '' : ` (Retry-After ${formatDuration(attempt.retryAfterMs)})`;
  const next =
    attempt.nextAttemptInMs === null ? '—' : `retried after ${formatDuration(attempt.nextAttemptInMs)}${asked}`;
  return { outcome, next };
}
