/**
 * A small typed HTTP client of the Kairos API (fetch-based), used by the MCP tools. It talks only
 * to /api, so the MCP server has exactly the caller's access: tenancy, quotas, rate limits and
 * validation are the API's. Credentials come from a provider (x-api-key or a device-flow bearer
 * token); after a 401 the provider may renew them once (the stdio server signs in again).
 *
 * Failures are thrown as KairosApiError carrying the API's error.code, message and details; an
 * unreachable API is SERVICE_UNAVAILABLE with no HTTP status.
 */
import {
  ERROR_STATUS,
  type BacktestInput,
  type CreateEndpointInput,
  type CreateJobInput,
  type DashboardQuery,
  type DashboardRecord,
  type EndpointHealthRecord,
  type EndpointRecord,
  type IntervalHintInput,
  type JobRecord,
  type ListJobsQuery,
  type ListRunsQuery,
  type OneShotHintInput,
  type PauseEndpointInput,
  type RunRecord,
  type UpdateEndpointInput,
  type UpdateJobInput,
  type analysisSessionRecord,
  type analysisSessionsPage,
  type backtestResultRecord,
  type clearHintsResult,
  type intervalHintResult,
  type oneShotHintResult,
  type pauseResult,
  type resetFailuresResult,
  type testRunResultRecord,
} from '@kairos/core';
import type { z } from 'zod';
import type { NotificationChannelInfo, NotificationInfo } from './notification-records.js';

export type CredentialHeaders = Record<string, string>;

/** Where an ApiClient gets the headers that authenticate a request. */
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

export class KairosApiError extends Error {
  constructor(
    /** The API's error.code (VALIDATION_ERROR, NOT_FOUND …), or SERVICE_UNAVAILABLE when unreachable. */
    readonly code: string,
    message: string,
    /** HTTP status; null when no response arrived. */
    readonly status: number | null,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'KairosApiError';
  }
}

const CODE_OF_STATUS = new Map<number, string>(
  Object.entries(ERROR_STATUS)
    .reverse() // the first code listed for a status wins (403 → FORBIDDEN, not QUOTA_EXCEEDED)
    .map(([code, status]) => [status, code]),
);

type QueryValue = string | number | boolean | null | undefined;
export type Query = Record<string, QueryValue>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** false: send no credentials (public routes such as /api/llms.txt). Default true. */
  authenticate?: boolean;
}

export interface ApiClientOptions {
  /** Where the API is, e.g. http://127.0.0.1:3000 (a path prefix is kept). */
  baseUrl: string;
  credentials: CredentialProvider;
  /** Extra headers on every request (e.g. X-Request-Id). */
  headers?: Record<string, string>;
  /** Per request; test runs wait for the endpoint's timeout (default 30 s) plus the executor. */
  timeoutMs?: number;
  userAgent?: string;
  fetch?: typeof fetch;
}

/** A list route's page: the items and the X-Total-Count header. */
export interface Page<T> {
  items: T[];
  total: number;
}

export type SigningKeyInfo = {
  hasKey: boolean;
  keyPrefix: string | null;
  createdAt: string | null;
  rotatedAt: string | null;
  /** The replaced key while a rotation grace window runs; null otherwise. */
  previousKeyPrefix: string | null;
  previousExpiresAt: string | null;
};

export type IssuedSigningKey = {
  rawKey: string;
  keyPrefix: string;
  createdAt: string;
  rotatedAt: string | null;
  previousKeyPrefix: string | null;
  previousExpiresAt: string | null;
};

/** The settings part of GET /api/account (what PATCH /api/account/settings changes). */
export type AccountSettings = {
  aiSchedulingEnabled: boolean;
  aiShadowMode: boolean;
  signingKeyGraceMinutes: number;
  notifyFailureThreshold: number;
  autoPauseAfterFailures: number | null;
};

export type JobActionResult = { success: true; job: JobRecord };
export type EndpointActionResult = { success: true; endpoint: EndpointRecord };
export type JobAction = 'archive' | 'pause' | 'resume';
export interface ListEndpointsQuery {
  limit?: number;
  offset?: number;
  includeArchived?: boolean;
}
type Paging = { limit?: number; offset?: number };

const DEFAULT_TIMEOUT_MS = 120_000;
const seg = (id: string) => encodeURIComponent(id);

export class ApiClient {
  readonly baseUrl: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** One API call; the parsed body (JSON, else text) and the response headers. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<{ body: T; headers: Headers }> {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    const { credentials } = this.options;
    const authenticate = options.authenticate ?? true;
    let sent = authenticate ? await credentials.headers() : {};
    let response = await this.send(method, url, sent, options.body);
    if (response.status === 401 && authenticate && credentials.refresh && (await credentials.refresh(sent))) {
      sent = await credentials.headers();
      response = await this.send(method, url, sent, options.body);
    }
    const text = await response.text();
    const body = parseBody(text, response.headers.get('content-type'));
    if (!response.ok) throw toApiError(response.status, body);
    return { body: body as T, headers: response.headers };
  }

  private async send(method: string, url: URL, credentials: CredentialHeaders, body: unknown): Promise<Response> {
    const headers: Record<string, string> = {
      accept: 'application/json, text/markdown;q=0.9, */*;q=0.1',
      'user-agent': this.options.userAgent ?? 'kairos-mcp',
      ...this.options.headers,
      ...credentials,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await this.fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : error;
      throw new KairosApiError('SERVICE_UNAVAILABLE', `cannot reach the Kairos API at ${this.baseUrl}: ${cause}`, null);
    }
  }

  private async call<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
    return (await this.request<T>(method, path, options)).body;
  }

  private async page<T>(path: string, query: Query): Promise<Page<T>> {
    const { body, headers } = await this.request<T[]>('GET', path, { query });
    const total = Number(headers.get('x-total-count'));
    return { items: body, total: Number.isFinite(total) ? total : body.length };
  }

  // Jobs
  createJob = (input: CreateJobInput) => this.call<JobRecord>('POST', '/api/jobs', { body: input });
  listJobs = (query: Partial<ListJobsQuery> = {}) => this.page<JobRecord>('/api/jobs', query);
  getJob = (id: string) => this.call<JobRecord>('GET', `/api/jobs/${seg(id)}`);
  updateJob = (id: string, input: UpdateJobInput) =>
    this.call<JobRecord>('PATCH', `/api/jobs/${seg(id)}`, { body: input });
  changeJob = (id: string, action: JobAction) => this.call<JobActionResult>('POST', `/api/jobs/${seg(id)}/${action}`);

  // Endpoints
  createEndpoint = (jobId: string, input: CreateEndpointInput) =>
    this.call<EndpointRecord>('POST', `/api/jobs/${seg(jobId)}/endpoints`, { body: input });
  listEndpoints = (jobId: string, query: ListEndpointsQuery = {}) =>
    this.page<EndpointRecord>(`/api/jobs/${seg(jobId)}/endpoints`, { ...query });
  getEndpoint = (id: string) => this.call<EndpointRecord>('GET', `/api/endpoints/${seg(id)}`);
  updateEndpoint = (jobId: string, id: string, input: UpdateEndpointInput) =>
    this.call<EndpointRecord>('PATCH', `/api/jobs/${seg(jobId)}/endpoints/${seg(id)}`, { body: input });
  archiveEndpoint = (jobId: string, id: string) =>
    this.call<EndpointActionResult>('POST', `/api/jobs/${seg(jobId)}/endpoints/${seg(id)}/archive`);
  backtestEndpoint = (id: string, input: BacktestInput) =>
    this.call<z.output<typeof backtestResultRecord>>('POST', `/api/endpoints/${seg(id)}/backtest`, { body: input });

  // Scheduling control
  pauseEndpoint = (id: string, input: PauseEndpointInput) =>
    this.call<z.output<typeof pauseResult>>('POST', `/api/endpoints/${seg(id)}/pause`, { body: input });
  applyIntervalHint = (id: string, input: IntervalHintInput) =>
    this.call<z.output<typeof intervalHintResult>>('POST', `/api/endpoints/${seg(id)}/hints/interval`, {
      body: input,
    });
  scheduleOneShot = (id: string, input: OneShotHintInput) =>
    this.call<z.output<typeof oneShotHintResult>>('POST', `/api/endpoints/${seg(id)}/hints/oneshot`, { body: input });
  clearHints = (id: string) =>
    this.call<z.output<typeof clearHintsResult>>('DELETE', `/api/endpoints/${seg(id)}/hints`);
  resetFailures = (id: string) =>
    this.call<z.output<typeof resetFailuresResult>>('POST', `/api/endpoints/${seg(id)}/reset-failures`);

  // Runs, health, test, dashboard
  listEndpointRuns = (id: string, query: Partial<ListRunsQuery> = {}) =>
    this.page<RunRecord>(`/api/endpoints/${seg(id)}/runs`, query);
  getRun = (id: string) => this.call<RunRecord>('GET', `/api/runs/${seg(id)}`);
  getEndpointHealth = (id: string, query: { sinceHours?: number } = {}) =>
    this.call<EndpointHealthRecord>('GET', `/api/endpoints/${seg(id)}/health`, { query });
  testEndpoint = (id: string) =>
    this.call<z.output<typeof testRunResultRecord>>('POST', `/api/endpoints/${seg(id)}/test`);
  getDashboard = (query: DashboardQuery = {}) => this.call<DashboardRecord>('GET', '/api/dashboard', { query });

  // AI analysis
  listAnalysisSessions = (id: string, query: Paging = {}) =>
    this.call<z.output<typeof analysisSessionsPage>>('GET', `/api/endpoints/${seg(id)}/analysis-sessions`, { query });
  getAnalysisSession = (id: string) =>
    this.call<z.output<typeof analysisSessionRecord>>('GET', `/api/analysis-sessions/${seg(id)}`);

  // Signing keys
  getSigningKey = () => this.call<SigningKeyInfo>('GET', '/api/signing-keys');
  createSigningKey = () => this.call<IssuedSigningKey>('POST', '/api/signing-keys');
  rotateSigningKey = () => this.call<IssuedSigningKey>('POST', '/api/signing-keys/rotate');
  revokePreviousSigningKey = () => this.call<SigningKeyInfo>('POST', '/api/signing-keys/revoke-previous');
  setSigningKeyGraceMinutes = async (signingKeyGraceMinutes: number) =>
    (
      await this.call<{ settings: AccountSettings }>('PATCH', '/api/account/settings', {
        body: { signingKeyGraceMinutes },
      })
    ).settings;

  // Notifications (issue #16)
  createNotificationChannel = (input: Record<string, unknown>) =>
    this.call<NotificationChannelInfo>('POST', '/api/notification-channels', { body: input });
  listNotificationChannels = (query: Paging = {}) =>
    this.page<NotificationChannelInfo>('/api/notification-channels', { ...query });
  deleteNotificationChannel = (id: string) =>
    this.call<{ success: true; channel: NotificationChannelInfo }>('DELETE', `/api/notification-channels/${seg(id)}`);
  testNotificationChannel = (id: string) =>
    this.call<NotificationInfo>('POST', `/api/notification-channels/${seg(id)}/test`);
  listNotifications = (query: Paging & { channelId?: string; event?: string } = {}) =>
    this.page<NotificationInfo>('/api/notifications', { ...query });
  updateAccountSettings = async (input: Partial<AccountSettings>) =>
    (await this.call<{ settings: AccountSettings }>('PATCH', '/api/account/settings', { body: input })).settings;

  // Documentation
  getLlmsTxt = () => this.call<string>('GET', '/api/llms.txt', { authenticate: false });
}

function parseBody(text: string, contentType: string | null): unknown {
  if (!contentType?.includes('json') || text === '') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The API's { error: { code, message, details } }, or a code from the status for other bodies. */
function toApiError(status: number, body: unknown): KairosApiError {
  const error = (body as { error?: unknown } | null)?.error;
  if (error && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string') {
    const { code, message, details } = error as { code: string; message?: unknown; details?: unknown };
    return new KairosApiError(
      code,
      typeof message === 'string' ? message : code,
      status,
      details && typeof details === 'object' ? (details as Record<string, unknown>) : undefined,
    );
  }
  const code = CODE_OF_STATUS.get(status) ?? (status >= 500 ? 'INTERNAL_ERROR' : 'HTTP_ERROR');
  const text = typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : '';
  return new KairosApiError(code, `the API answered HTTP ${status}${text}`, status);
}
