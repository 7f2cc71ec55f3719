/**
 * One model call of an analysis, with the planner's retries: up to `maxRetries` more attempts
 * (PLANNER_MODEL_MAX_RETRIES, 1) on 408, 409, 429, 5xx, 529 and connection errors, each after the
 * wait the model asks for (`retry-after-ms`, `retry-after` in seconds or as an HTTP date) or, without
 * one, 0.5 s doubling up to 8 s. A wait that does not fit before the analysis deadline (with 1 s
 * left for the call) is not made: the call fails at once with what the model said, so a 429 with
 * `retry-after: 3600` fails the analysis as rate-limited in milliseconds instead of holding a
 * planner slot until PLANNER_TIMEOUT_MS and being recorded as a timeout. Every attempt first reads
 * the installation's pause of model calls and reports its outcome to it (model-pause.ts).
 */
import type Anthropic from '@anthropic-ai/sdk';
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { describeModelError, ModelPausedError, WaitPastDeadlineError } from './model.js';
import type { ModelPause } from './model-pause.js';

export interface ModelCallOptions {
  client: Anthropic;
  pause: ModelPause;
  maxRetries: number;
  signal: AbortSignal;
  /** Epoch ms when the analysis must end: each attempt's timeout is what remains. */
  deadline: number;
}

export type MessageRequest = Anthropic.MessageCreateParamsNonStreaming;

/** Time left for the call itself after a retry's wait: a wait that leaves less is not made. */
const CALL_MIN_MS = 1000;
const BACKOFF_FIRST_MS = 500;
const BACKOFF_LONGEST_MS = 8000;

const RETRIED_STATUSES = new Set([408, 409, 429]);

/** A failure of the model (or the way to it), as opposed to one of this request or this planner. */
function isModelFailure(error: unknown): error is APIError {
  if (error instanceof APIUserAbortError) return false;
  if (error instanceof APIConnectionError) return true;
  if (!(error instanceof APIError)) return false;
  const status = error.status ?? 0;
  return RETRIED_STATUSES.has(status) || status >= 500;
}

/** The wait the model asked for, in ms (null: none, or unreadable). */
function askedWaitMs(error: APIError, now: number): number | null {
  const headers = error.headers;
  if (!headers) return null;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null) return null;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(new APIUserAbortError());
    }
    signal.addEventListener('abort', aborted, { once: true });
  });

export async function createMessage(request: MessageRequest, options: ModelCallOptions): Promise<Anthropic.Message> {
  const { client, pause, signal, deadline } = options;
  let lastFailure: unknown = null;
  for (let attempt = 0; ; attempt += 1) {
    const paused = await pause.current();
    if (paused) throw lastFailure ?? new ModelPausedError(paused);
    try {
      const message = await client.messages.create(request, {
        signal,
        timeout: Math.max(1, deadline - Date.now()),
        maxRetries: 0,
      });
      pause.recordAnswer();
      return message;
    } catch (error) {
      if (!isModelFailure(error)) throw error;
      const now = Date.now();
      const asked = askedWaitMs(error, now);
      const waitMs = asked ?? Math.min(BACKOFF_FIRST_MS * 2 ** attempt, BACKOFF_LONGEST_MS);
      const fits = now + waitMs + CALL_MIN_MS <= deadline;
      if (!fits && asked !== null && error.status === 429) {
        const failure = new WaitPastDeadlineError(error, waitMs);
        await pause.pauseFor(waitMs, `the model asked to wait ${Math.ceil(waitMs / 1000)} s (HTTP 429)`);
        throw failure;
      }
      await pause.recordFailure(describeModelError(error, 0, false).message);
      if (attempt >= options.maxRetries) throw error;
      if (!fits) throw asked === null ? error : new WaitPastDeadlineError(error, waitMs);
      lastFailure = error;
      await sleep(waitMs, signal);
    }
  }
}
