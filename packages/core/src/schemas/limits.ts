/**
 * Size and range limits of the API's inputs. Each bound is documented in the guide (docs/guide/) and
 * in the OpenAPI document.
 */
export const LIMITS = {
  nameMaxLength: 200,
  descriptionMaxLength: 4000,
  urlMaxLength: 2048,
  /** The interval floor: an interval below 1000 ms is invalid. */
  intervalMinMs: 1000,
  /** Largest 32-bit interval (~24.8 days); longer periods are expressed as cron. */
  intervalMaxMs: 2_147_483_647,
  timeoutDefaultMs: 30_000,
  timeoutMinMs: 100,
  timeoutMaxMs: 300_000,
  maxResponseSizeDefaultKb: 100,
  maxResponseSizeMaxKb: 1024,
  headersMaxCount: 50,
  headerNameMaxLength: 256,
  headerValueMaxLength: 8192,
  bodyMaxBytes: 64 * 1024,
  cronMaxLength: 256,
  /** Request bodies the API accepts at all (JSON). */
  requestBodyMaxBytes: 256 * 1024,
  /**
   * A request's header section (request line included), Node's own default made explicit: 16 KiB
   * holds a session cookie, a token and every browser's headers many times over.
   */
  requestHeadersMaxBytes: 16 * 1024,
  listDefaultLimit: 100,
  listMaxLimit: 1000,
} as const;

/**
 * Bounds of an endpoint's `retry` setting (opt-in). Five more attempts at most: past that a
 * transient failure is an outage, which the failure backoff handles between runs. The base is at
 * least 100 ms (the timeout floor: a faster hammer helps no one); the cap at most 300,000 ms (the
 * timeout ceiling), so one run's lease stays below an hour: 6 attempts × 300 s + 5 waits × 300 s = 55 min.
 */
export const RETRY_LIMITS = {
  attemptsMin: 1,
  attemptsMax: 5,
  backoffBaseDefaultMs: 1000,
  backoffBaseMinMs: 100,
  backoffBaseMaxMs: 60_000,
  backoffCapDefaultMs: 30_000,
  backoffCapMaxMs: 300_000,
} as const;

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export const METHODS_WITH_BODY: readonly HttpMethod[] = ['POST', 'PUT', 'PATCH'];

/**
 * Headers the service sets itself or that the HTTP client owns; user headers may not set them.
 * X-Service-* are the signing and delivery headers (Authentication > Outbound).
 */
export const RESERVED_HEADER_NAMES = [
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'user-agent',
  'x-service-signature',
  'x-service-timestamp',
  'x-service-run-id',
] as const;

/**
 * Header values that are secrets: masked in every response, never read back (docs/guide/endpoints-and-runs.md "Endpoints").
 * A name is sensitive when it contains any of these words anywhere (X-Custom-Key, X-Hub-Signature,
 * Private-Key, X-Session-Id...): masking a harmless header costs a retype in the form, showing a
 * secret costs the secret. Plain alternatives without quantifiers: linear on any input.
 */
export const SENSITIVE_HEADER_PATTERN = /auth|token|secret|passw|passphrase|key|sig|credential|session|private|cookie/i;
export const MASKED_HEADER_VALUE = '********';
