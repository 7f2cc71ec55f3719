/**
 * The model client (Anthropic Messages API through @anthropic-ai/sdk) and what its failures mean
 * for an analysis. The SDK's own retries are off: it would wait whatever a `retry-after` asks (an
 * hour for a 429 with `retry-after: 3600`), holding a planner slot until the analysis times out.
 * The planner retries itself (model-call.ts), only when the wait fits before the deadline.
 */
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import type { PlannerModelPause } from '@kairos/queue';

export interface ModelSettings {
  apiKey: string;
  /** Default: Anthropic's API. */
  baseURL?: string | undefined;
  model: string;
  /** Retries of one model call (429, 408, 409, 5xx, 529 overloaded, connection errors), by the planner. */
  maxRetries: number;
}

export function createModelClient(settings: ModelSettings): Anthropic {
  return new Anthropic({
    apiKey: settings.apiKey,
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
    maxRetries: 0,
  });
}

/** Model calls are paused (model-pause.ts): the analysis stops without calling. */
export class ModelPausedError extends Error {
  constructor(readonly pause: PlannerModelPause) {
    super(`model calls are paused until ${pause.pausedUntil.toISOString()}: ${pause.reason}`);
  }
}

/** The model asked to wait longer than the analysis has left: it fails now rather than at its deadline. */
export class WaitPastDeadlineError extends Error {
  constructor(
    readonly failure: APIError,
    readonly waitMs: number,
  ) {
    super(`the model asks to wait ${Math.ceil(waitMs / 1000)} s, past the analysis deadline`);
  }
}

/** An answer the Messages API would never send (no content array). */
export class MalformedAnswerError extends Error {}

/** Why an analysis failed: a metrics label and the message its session records. */
export interface AnalysisFailure {
  reason:
    | 'timeout'
    | 'unreachable'
    | 'overloaded'
    | 'rate-limited'
    | 'rejected'
    | 'model-error'
    | 'model-paused'
    | 'incomplete-answer'
    | 'step-limit'
    | 'budget-exhausted'
    | 'internal';
  message: string;
}

export function describeModelError(error: unknown, timeoutMs: number, timedOut: boolean): AnalysisFailure {
  if (timedOut || error instanceof APIConnectionTimeoutError) {
    return { reason: 'timeout', message: `analysis timed out after ${timeoutMs} ms` };
  }
  if (error instanceof APIUserAbortError) return { reason: 'internal', message: 'analysis aborted (planner stopping)' };
  if (error instanceof ModelPausedError) return { reason: 'model-paused', message: error.message };
  if (error instanceof WaitPastDeadlineError) {
    const failure = describeModelError(error.failure, timeoutMs, false);
    return { reason: failure.reason, message: `${failure.message}: ${error.message}` };
  }
  if (error instanceof MalformedAnswerError) return { reason: 'model-error', message: error.message };
  if (error instanceof APIConnectionError) {
    return { reason: 'unreachable', message: `model unreachable: ${error.message}` };
  }
  if (error instanceof APIError) {
    const status = error.status ?? 0;
    const detail = `HTTP ${status}: ${error.message}`;
    if (status === 529) return { reason: 'overloaded', message: `model overloaded (${detail})` };
    if (status === 429) return { reason: 'rate-limited', message: `model rate limit reached (${detail})` };
    if (status === 401 || status === 403) return { reason: 'rejected', message: `model API key rejected (${detail})` };
    return { reason: 'model-error', message: `model API error (${detail})` };
  }
  return { reason: 'internal', message: `analysis failed: ${(error as Error)?.message ?? String(error)}` };
}
