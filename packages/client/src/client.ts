/**
 * The Kairos API client: openapi-fetch over the types generated from the API's OpenAPI document
 * (schema.d.ts, written by `pnpm web:api`), so every path, parameter and record is checked at
 * compile time, with one fetch wrapper that adds what every caller needs:
 *
 * - credentials: an API key (`x-api-key`), a bearer token, or a provider that may renew them once
 *   after a 401 (a device-flow sign-in); none for a browser on the API's own origin (its cookie);
 * - 429: retried after Retry-After (seconds or an HTTP date), at most `maxRetries` times and only
 *   when the wait is at most `maxWaitMs`: a longer one answers the 429 at once. A 429 is an answer
 *   to a request the API did not carry out, so a retried write is not done twice;
 * - a timeout per attempt, and SERVICE_UNAVAILABLE (no status) when the API cannot be reached.
 *
 * Answers are openapi-fetch's `{ data, error, response }`; `unwrap` turns them into the data or a
 * thrown KairosApiError, `settle` into a value (errors.ts).
 */
import createClient, { type Client } from 'openapi-fetch';
import { KairosApiError } from './errors.js';
import type { paths } from './schema.js';

export type CredentialHeaders = Record<string, string>;

/** Where a client gets the headers that authenticate a request. */
export interface CredentialProvider {
  /** `x-api-key: …` or `authorization: Bearer …`. */
  headers(): Promise<CredentialHeaders>;
  /**
   * Called after a 401 with the headers that were refused. Resolve true when new credentials are
   * available: the request is then sent once more. Absent: a 401 is final.
   */
  refresh?(refused: CredentialHeaders): Promise<boolean>;
}

/** Fixed credentials (an API key, a bearer token, or headers forwarded from an incoming request). */
export const staticCredentials = (headers: CredentialHeaders): CredentialProvider => ({
  headers: async () => headers,
});
export const apiKeyCredentials = (apiKey: string) => staticCredentials({ 'x-api-key': apiKey });
export const bearerCredentials = (accessToken: string) => staticCredentials({ authorization: `Bearer ${accessToken}` });

export interface RetryOptions {
  /** Retries of one request after a 429 (default 3). */
  maxRetries?: number;
  /** The longest Retry-After waited for (default 60 s); a longer one answers the 429 at once. */
  maxWaitMs?: number;
}

export interface KairosClientOptions {
  /** Where the API is, e.g. https://kairos.example.com (a path prefix is kept); '' for the same origin. */
  baseUrl: string;
  /** Absent: no credential headers (a browser's session cookie on the API's own origin). */
  credentials?: CredentialProvider;
  /** Extra headers on every request (e.g. X-Request-Id). */
  headers?: Record<string, string>;
  /** Sent as User-Agent where the runtime allows it (not in browsers). */
  userAgent?: string;
  /** Per attempt (default 120 s: a test run waits for the endpoint's own timeout). */
  timeoutMs?: number;
  /** 429 retries; false: none. */
  retry?: RetryOptions | false;
  /** fetch's credentials mode (a browser: 'same-origin'). */
  requestCredentials?: RequestInit['credentials'];
  fetch?: typeof fetch;
  /** How the client waits before a retry (tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
}

export type KairosClient = Client<paths> & {
  readonly baseUrl: string;
  /**
   * A request outside the OpenAPI document (e.g. GET /api/llms.txt, Markdown), with the same
   * credentials, retries and timeout; the answer as fetch gives it.
   */
  request(path: string, init?: RequestInit): Promise<Response>;
};

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_RETRY = { maxRetries: 3, maxWaitMs: 60_000 };

export function createKairosClient(options: KairosClientOptions): KairosClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const send = kairosFetch({ ...options, baseUrl });
  const client = createClient<paths>({
    baseUrl,
    fetch: send,
    ...(options.requestCredentials ? { credentials: options.requestCredentials } : {}),
  });
  const request = (path: string, init: RequestInit = {}) =>
    send(new Request(new URL(baseUrl + path, (globalThis as { location?: { href: string } }).location?.href), init));
  return Object.assign(client, { baseUrl, request });
}

/** Milliseconds a 429 asks to wait: Retry-After in seconds or as an HTTP date; null when absent. */
export function retryAfterMs(response: Response, nowMs = Date.now()): number | null {
  const header = response.headers.get('retry-after');
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

function kairosFetch(options: KairosClientOptions & { baseUrl: string }) {
  const send = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const retry = options.retry === false ? { maxRetries: 0, maxWaitMs: 0 } : { ...DEFAULT_RETRY, ...options.retry };
  const { credentials } = options;

  const attempt = async (request: Request, credentialHeaders: CredentialHeaders): Promise<Response> => {
    const copy = request.clone();
    for (const [name, value] of Object.entries({
      ...(options.userAgent ? { 'user-agent': options.userAgent } : {}),
      ...options.headers,
      ...credentialHeaders,
    })) {
      copy.headers.set(name, value);
    }
    const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      return await send(copy, { signal: AbortSignal.any([request.signal, timeout]) });
    } catch (error) {
      const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : error;
      const what = timeout.aborted ? `no answer within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms` : String(cause);
      throw new KairosApiError(
        'SERVICE_UNAVAILABLE',
        `cannot reach the Kairos API at ${options.baseUrl}: ${what}`,
        null,
      );
    }
  };

  return async (request: Request): Promise<Response> => {
    let sent = credentials ? await credentials.headers() : {};
    let refreshed = false;
    for (let retries = 0; ;) {
      const response = await attempt(request, sent);
      if (response.status === 401 && credentials?.refresh && !refreshed) {
        refreshed = true;
        if (await credentials.refresh(sent)) {
          await response.body?.cancel();
          sent = await credentials.headers();
          continue;
        }
      }
      if (response.status === 429 && retries < retry.maxRetries) {
        const waitMs = retryAfterMs(response) ?? 1000 * 2 ** retries;
        if (waitMs <= retry.maxWaitMs) {
          await response.body?.cancel();
          await sleep(waitMs);
          retries += 1;
          continue;
        }
      }
      return response;
    }
  };
}
