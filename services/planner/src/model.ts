/**
 * The model client (Anthropic Messages API through @anthropic-ai/sdk) and what its failures mean
 * for an analysis. The SDK retries 408/409/429/5xx/529 and connection errors itself; `maxRetries`
 * is kept small because the planner has its own, slower retry (the next analysis, with backoff).
 */
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';

export interface ModelSettings {
  apiKey: string;
  /** Default: Anthropic's API. */
  baseURL?: string | undefined;
  model: string;
  maxRetries: number;
}

export function createModelClient(settings: ModelSettings): Anthropic {
  return new Anthropic({
    apiKey: settings.apiKey,
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
    maxRetries: settings.maxRetries,
  });
}

/** Why an analysis failed: a metrics label and the message its session records. */
export interface AnalysisFailure {
  reason:
    | 'timeout'
    | 'unreachable'
    | 'overloaded'
    | 'rate-limited'
    | 'rejected'
    | 'model-error'
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
