export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The request an endpoint describes (its input fields). */
export interface HttpRequestSpec {
  url: string;
  method: HttpMethod;
  /** User headers; the service's own headers win over them (see outbound-request.ts). */
  headers: Record<string, string>;
  /** An object is sent as JSON (content-type application/json unless set); a string as-is. */
  body: string | Record<string, unknown> | null;
  timeoutMs: number;
  maxResponseSizeKb: number;
}

export interface ExecutionContext {
  runId: string;
  endpointId: string;
  scheduledAt: Date;
  lastRunAt: Date | null;
  /** The account's raw signing key, or null when the account has none (then nothing is signed). */
  signingKey: string | null;
  /**
   * The key a rotation replaced, while the account's grace window keeps it (opt-in):
   * the request then carries both signatures, the current key's first. Absent or null: one signature.
   */
  previousSigningKey?: string | null;
  /**
   * The execution's W3C trace context (`traceparent`, `tracestate`), set only while tracing is on and the
   * endpoint's `propagateTrace` is true (call-span.ts); it replaces the endpoint's own headers of those names.
   */
  traceHeaders?: TraceHeaders;
}

/** The W3C trace context headers a target may receive; nothing else of the propagator's (no baggage). */
export interface TraceHeaders {
  traceparent?: string;
  tracestate?: string;
}

/** Which private targets may be called (parsed from KAIROS_ALLOW_PRIVATE_TARGETS and the allowlist). */
export interface EgressPolicy {
  allowPrivateTargets: boolean;
  /** CIDR ranges permitted despite being private or reserved, e.g. '10.1.0.0/16', 'fd00::/8'. */
  allowCidrs: string[];
}

/** assertion_failed: never from the call itself; the endpoint's successWhen judged the response (response-rules.ts). */
export type HttpErrorKind =
  | 'timeout'
  | 'http_status'
  | 'network'
  | 'blocked'
  | 'invalid_request'
  | 'assertion_failed'
  /** A `{{secrets.NAME}}` names no secret of the account: the request was not sent (execute.ts). */
  | 'secret_missing';

export type ResponseFormat = 'json' | 'text' | 'empty';

/** What one execution produced; the caller records it as a Run. Never thrown, always returned. */
export interface HttpOutcome {
  status: 'success' | 'failed';
  /** Final status after redirects; null when no response arrived. */
  statusCode: number | null;
  durationMs: number;
  startedAt: Date;
  completedAt: Date;
  responseBody: unknown | null;
  /** null when no response arrived. */
  responseFormat: ResponseFormat | null;
  /** True when the stored body is only a prefix of the body (size limit, or the read was cut short). */
  responseTruncated: boolean;
  /** Some characters of the body were replaced by U+FFFD to make it storable (response-body.ts). */
  responseBodyAltered: boolean;
  /** See response-body.ts for how the size is measured; null when no response arrived. */
  responseSizeBytes: number | null;
  errorKind: HttpErrorKind | null;
  errorMessage: string | null;
  /** The URL that produced the final response (after redirects), or the last URL attempted. */
  finalUrl: string | null;
  /** The final response's Retry-After header as sent (read by services/executor/src/retry.ts); absent or null without one. */
  retryAfter?: string | null;
}

export interface HttpExecutorOptions {
  egress: EgressPolicy;
  userAgent: string;
  /** Redirect hops followed before the run fails; default 5. */
  maxRedirects?: number;
  /**
   * Told of every target the egress guard refused, with what the run's error leaves out (the address a
   * host name resolved to, its range): the executor logs it for the operator.
   */
  onBlocked?: (refusal: BlockedTarget) => void;
}

/** A refused target, for the operator's log (never recorded on the run: egress-guard.ts). */
export interface BlockedTarget {
  runId: string;
  endpointId: string;
  hostname: string;
  address: string;
  range: string;
}

export interface HttpExecutor {
  execute(spec: HttpRequestSpec, ctx: ExecutionContext): Promise<HttpOutcome>;
  /** Destroys the keep-alive sockets; the executor must not be used afterwards. */
  close(): void;
}
