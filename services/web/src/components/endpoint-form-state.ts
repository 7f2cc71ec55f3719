/**
 * The endpoint form's state: what the inputs hold, how an endpoint fills them on edit, and the
 * names of the form's fields (errors are keyed by these, not by the API's field names).
 */
import type { Schemas } from '../api/client';
import { toDateTimeLocal } from './endpoint-datetime';
import { msToDuration, type Duration } from './endpoint-form-units';
import { rulesFormState, type RulesFormState } from './rules-format';

export type Endpoint = Schemas['Endpoint'];
export type HttpMethod = Endpoint['method'];
export type ScheduleType = 'interval' | 'cron';
export type BodyFormat = 'json' | 'text';

export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
export const METHODS_WITH_BODY: readonly HttpMethod[] = ['POST', 'PUT', 'PATCH'];
/** How the API shows a sensitive header value; sent back unchanged, it keeps the stored value. */
export const MASKED_HEADER_VALUE = '********';

/**
 * One header row. A sensitive header read from the API arrives masked: the row keeps
 * `isMasked` and an empty `value`; left empty, the masked value is sent back and the API keeps the
 * stored secret. `storedName` is the name the stored value belongs to.
 */
export interface HeaderRow {
  key: string;
  name: string;
  value: string;
  storedName: string | null;
  isMasked: boolean;
}

/** One blackout window as the form edits it: recurring (cron + how long) or from one time to another (local). */
export interface BlackoutRow {
  key: string;
  kind: 'cron' | 'range';
  cron: string;
  duration: Duration;
  from: string;
  to: string;
}

export interface EndpointFormState {
  name: string;
  description: string;
  url: string;
  method: HttpMethod;
  scheduleType: ScheduleType;
  interval: Duration;
  cron: string;
  timezone: string;
  minInterval: Duration;
  maxInterval: Duration;
  /** Empty: no jitter (jitterMs 0). */
  jitter: Duration;
  /** What runs for slots missed while the scheduler was away (default latest). */
  missedRuns: Endpoint['missedRuns'];
  /** datetime-local text in the browser's zone; empty: no bound. */
  activeFrom: string;
  activeUntil: string;
  blackouts: BlackoutRow[];
  timeout: Duration;
  /** More attempts after the first, as typed; empty or 0: no retries (retry null). */
  retryAttempts: string;
  retryBase: Duration;
  retryCap: Duration;
  /** Trace context to the target while the deployment has tracing on (default true). */
  propagateTrace: boolean;
  maxResponseSizeKb: string;
  headers: HeaderRow[];
  bodyFormat: BodyFormat;
  bodyText: string;
  /** successWhen and rules as the rules editor holds them. */
  responseRules: RulesFormState;
}

export type FormField =
  | 'name'
  | 'description'
  | 'url'
  | 'method'
  | 'interval'
  | 'cron'
  | 'timezone'
  | 'minInterval'
  | 'maxInterval'
  | 'jitter'
  | 'missedRuns'
  | 'activeFrom'
  | 'activeUntil'
  | 'blackouts'
  | 'timeout'
  | 'retry'
  | 'maxResponseSizeKb'
  | 'headers'
  | 'body';

/** Errors to show: per field, per header row (by row key), and those that belong to no field. */
export interface FormErrors {
  fields: Partial<Record<FormField, string>>;
  headerRows: Record<string, string>;
  /** Response rules' errors, keyed by the API's field path (`rules[0].when.all[1].value`). */
  ruleFields?: Record<string, string>;
  form: string[];
}

export const NO_ERRORS: FormErrors = { fields: {}, headerRows: {}, form: [] };

export function hasErrors(errors: FormErrors): boolean {
  return (
    Object.keys(errors.fields).length > 0 ||
    Object.keys(errors.headerRows).length > 0 ||
    Object.keys(errors.ruleFields ?? {}).length > 0 ||
    errors.form.length > 0
  );
}

let blackoutCounter = 0;
export function newBlackoutRow(overrides: Partial<Omit<BlackoutRow, 'key'>> = {}): BlackoutRow {
  blackoutCounter += 1;
  return {
    key: `blackout-${blackoutCounter}`,
    kind: 'cron',
    cron: '',
    duration: { amount: '1', unit: 'h' },
    from: '',
    to: '',
    ...overrides,
  };
}

/** The stored windows as rows (absolute times in the browser's zone). */
export function blackoutRows(blackouts: Endpoint['blackouts']): BlackoutRow[] {
  return (blackouts ?? []).map((window) =>
    'cron' in window
      ? newBlackoutRow({ kind: 'cron', cron: window.cron, duration: msToDuration(window.durationMs) })
      : newBlackoutRow({
          kind: 'range',
          from: toDateTimeLocal(new Date(window.from)),
          to: toDateTimeLocal(new Date(window.to)),
        }),
  );
}

let rowCounter = 0;
export function newHeaderRow(name = '', value = ''): HeaderRow {
  rowCounter += 1;
  return { key: `header-${rowCounter}`, name, value, storedName: null, isMasked: false };
}

/** A new endpoint: every 5 minutes, GET, the API's defaults for timeout and response size. */
export function emptyFormState(defaultTimezone = 'UTC'): EndpointFormState {
  return {
    name: '',
    description: '',
    url: '',
    method: 'GET',
    scheduleType: 'interval',
    interval: { amount: '5', unit: 'min' },
    cron: '',
    timezone: defaultTimezone,
    minInterval: { amount: '', unit: 'min' },
    maxInterval: { amount: '', unit: 'min' },
    jitter: { amount: '', unit: 's' },
    missedRuns: 'latest',
    activeFrom: '',
    activeUntil: '',
    blackouts: [],
    timeout: { amount: '30', unit: 's' },
    retryAttempts: '',
    retryBase: { amount: '1', unit: 's' },
    retryCap: { amount: '30', unit: 's' },
    propagateTrace: true,
    maxResponseSizeKb: '100',
    headers: [],
    bodyFormat: 'json',
    bodyText: '',
    responseRules: rulesFormState(null, null),
  };
}

/** The body as editable text: JSON pretty-printed, a string as-is. */
export function bodyToText(body: Endpoint['bodyJson']): { bodyFormat: BodyFormat; bodyText: string } {
  if (body === null) return { bodyFormat: 'json', bodyText: '' };
  if (typeof body === 'string') return { bodyFormat: 'text', bodyText: body };
  return { bodyFormat: 'json', bodyText: JSON.stringify(body, null, 2) };
}

export function formStateFromEndpoint(endpoint: Endpoint): EndpointFormState {
  const headers = Object.entries(endpoint.headersJson ?? {}).map(([name, value]) => {
    const isMasked = value === MASKED_HEADER_VALUE;
    return { ...newHeaderRow(name, isMasked ? '' : value), storedName: name, isMasked };
  });
  return {
    name: endpoint.name,
    description: endpoint.description ?? '',
    url: endpoint.url,
    method: endpoint.method,
    scheduleType: endpoint.baselineCron !== null ? 'cron' : 'interval',
    interval: msToDuration(endpoint.baselineIntervalMs),
    cron: endpoint.baselineCron ?? '',
    timezone: endpoint.timezone,
    minInterval: msToDuration(endpoint.minIntervalMs),
    maxInterval: msToDuration(endpoint.maxIntervalMs),
    jitter: msToDuration(endpoint.jitterMs > 0 ? endpoint.jitterMs : null, 's'),
    missedRuns: endpoint.missedRuns,
    activeFrom: endpoint.activeFrom ? toDateTimeLocal(new Date(endpoint.activeFrom)) : '',
    activeUntil: endpoint.activeUntil ? toDateTimeLocal(new Date(endpoint.activeUntil)) : '',
    blackouts: blackoutRows(endpoint.blackouts),
    timeout: msToDuration(endpoint.timeoutMs, 's'),
    retryAttempts: endpoint.retry ? String(endpoint.retry.attempts) : '',
    retryBase: msToDuration(endpoint.retry?.backoffBaseMs ?? 1000, 's'),
    retryCap: msToDuration(endpoint.retry?.backoffCapMs ?? 30_000, 's'),
    propagateTrace: endpoint.propagateTrace,
    maxResponseSizeKb: String(endpoint.maxResponseSizeKb),
    headers,
    ...bodyToText(endpoint.bodyJson),
    responseRules: rulesFormState(endpoint.successWhen, endpoint.rules),
  };
}
