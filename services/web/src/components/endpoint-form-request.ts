/**
 * Form state → the API's endpoint input. Client-side checks are only the cheap ones (required
 * fields, number formats, JSON syntax, header rows); the API validates everything again and its
 * VALIDATION_ERROR issues are mapped back onto the form (endpoint-form-issues.ts).
 */
import type { Schemas } from '../api/client';
import { fromDateTimeLocal } from './endpoint-datetime';
import {
  MASKED_HEADER_VALUE,
  METHODS_WITH_BODY,
  type BlackoutRow,
  type Endpoint,
  type EndpointFormState,
  type FormErrors,
  type FormField,
  type HeaderRow,
} from './endpoint-form-state';
import { durationToMs, durationWords, type Duration } from './endpoint-form-units';
import { buildRules, type Rule, type SuccessWhen } from './rules-format';

export type CreateEndpointBody = Schemas['CreateEndpointInput'];
export type UpdateEndpointBody = Schemas['UpdateEndpointInput'];

/** Every canonical field with its intended value (null: not set). timezone only for a cron baseline. */
export interface EndpointValues {
  name: string;
  description: string | null;
  url: string;
  method: Endpoint['method'];
  baselineIntervalMs: number | null;
  baselineCron: string | null;
  timezone?: string;
  minIntervalMs: number | null;
  maxIntervalMs: number | null;
  jitterMs: number;
  missedRuns: Endpoint['missedRuns'];
  activeFrom: string | null;
  activeUntil: string | null;
  blackouts: Endpoint['blackouts'];
  timeoutMs: number;
  retry: Endpoint['retry'];
  propagateTrace: boolean;
  maxResponseSizeKb: number;
  headersJson: Record<string, string> | null;
  bodyJson: Endpoint['bodyJson'];
  successWhen: SuccessWhen | null;
  rules: Rule[] | null;
}

export type BuildResult = { ok: true; values: EndpointValues } | { ok: false; errors: FormErrors };

/** The API's bounds on durations (LIMITS, RETRY_LIMITS and JITTER_MAX_MS in @kairos/core). */
const BOUNDS = {
  intervalMinMs: 1000,
  intervalMaxMs: 2_147_483_647,
  jitterMaxMs: 3_600_000,
  timeoutMinMs: 100,
  timeoutMaxMs: 300_000,
  retryMinMs: 100,
  retryBaseMaxMs: 60_000,
  retryCapMaxMs: 300_000,
} as const;
const INTERVAL_RANGE = 'enter at least 1 second and at most 24 days (use a cron schedule for longer periods)';

/** RFC 9110 token characters, as the API checks header names. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const CRON_FIELDS = 'a cron expression has five fields (minute hour day-of-month month day-of-week)';

function checkUrl(url: string): string | null {
  if (url === '') return 'is required';
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:'
      ? null
      : `only http and https URLs are allowed, not ${parsed.protocol}`;
  } catch {
    return 'must be an absolute http:// or https:// URL';
  }
}

function buildHeaders(rows: HeaderRow[], rowErrors: Record<string, string>): Record<string, string> | null {
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (const row of rows) {
    const name = row.name.trim();
    if (name === '' && row.value === '' && !row.isMasked) continue;
    const lower = name.toLowerCase();
    if (name === '') rowErrors[row.key] = 'enter the header name';
    else if (!HEADER_NAME.test(name)) rowErrors[row.key] = `invalid header name ${JSON.stringify(name)}`;
    else if (seen.has(lower)) rowErrors[row.key] = `header ${name} is given twice (names are case-insensitive)`;
    else if (row.isMasked && row.value === '' && lower !== row.storedName?.toLowerCase()) {
      rowErrors[row.key] = `type the value again: the stored value is hidden and belongs to ${row.storedName}`;
    }
    seen.add(lower);
    headers[name] = row.isMasked && row.value === '' ? MASKED_HEADER_VALUE : row.value;
  }
  return Object.keys(headers).length > 0 ? headers : null;
}

function buildBody(state: EndpointFormState): { body: Endpoint['bodyJson']; error?: string } {
  if (state.bodyText.trim() === '') return { body: null };
  const allowed = METHODS_WITH_BODY.includes(state.method);
  const methodError = allowed
    ? undefined
    : `a request body is only allowed for ${METHODS_WITH_BODY.join(', ')}, not ${state.method}`;
  if (state.bodyFormat === 'text') return { body: state.bodyText, ...(methodError ? { error: methodError } : {}) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(state.bodyText);
  } catch (error) {
    return { body: null, error: `not valid JSON (${(error as Error).message}); choose Text to send it as written` };
  }
  if (parsed === null || typeof parsed !== 'object') {
    return { body: null, error: 'a JSON body must be an object or an array; choose Text to send other text' };
  }
  return { body: parsed as Endpoint['bodyJson'], ...(methodError ? { error: methodError } : {}) };
}

/** The retry setting as typed: null when no retries (empty or 0 attempts); the API checks the bounds again. */
function buildRetry(state: EndpointFormState, fields: FormErrors['fields']): Endpoint['retry'] {
  const text = state.retryAttempts.trim();
  if (text === '' || text === '0') return null;
  const attempts = Number(text);
  if (!Number.isInteger(attempts) || attempts < 0 || attempts > 5) {
    fields.retry = 'enter a whole number of retries from 0 to 5';
    return null;
  }
  const backoffBaseMs = readDuration(state.retryBase, 'retry', fields) ?? 1000;
  const backoffCapMs = readDuration(state.retryCap, 'retry', fields) ?? 30_000;
  if (backoffBaseMs < BOUNDS.retryMinMs || backoffBaseMs > BOUNDS.retryBaseMaxMs) {
    fields.retry ??= 'the first retry waits from 0.1 seconds to 1 minute';
  } else if (backoffCapMs < BOUNDS.retryMinMs || backoffCapMs > BOUNDS.retryCapMaxMs) {
    fields.retry ??= 'the longest wait between retries is from 0.1 seconds to 5 minutes';
  } else if (backoffCapMs < backoffBaseMs) {
    fields.retry ??= 'the longest wait between retries must not be shorter than the first';
  }
  return { attempts, backoffBaseMs, backoffCapMs };
}

function readDuration(duration: Duration, field: FormField, fields: FormErrors['fields']): number | null {
  const result = durationToMs(duration);
  if (result.ok) return result.ms;
  fields[field] = result.message;
  return null;
}

/** Only an interval the API accepts: at least 1 second, at most its 32-bit ceiling (about 24.8 days). */
function checkIntervalRange(ms: number | null, field: FormField, fields: FormErrors['fields']): void {
  if (ms !== null && (ms < BOUNDS.intervalMinMs || ms > BOUNDS.intervalMaxMs)) fields[field] ??= INTERVAL_RANGE;
}

/** The cross-field rules of the schedule, said in the units the person chose. */
function checkSchedule(
  intervalMs: number | null,
  limits: { minIntervalMs: number | null; maxIntervalMs: number | null; jitterMs: number },
  fields: FormErrors['fields'],
): void {
  const { minIntervalMs: min, maxIntervalMs: max, jitterMs } = limits;
  checkIntervalRange(intervalMs, 'interval', fields);
  checkIntervalRange(min, 'minInterval', fields);
  checkIntervalRange(max, 'maxInterval', fields);
  if (min !== null && max !== null && min > max) fields.minInterval ??= 'must not be longer than the ceiling';
  if (intervalMs !== null && min !== null && intervalMs < min) {
    fields.interval ??= `must not be shorter than the safety floor (${durationWords(min)})`;
  }
  if (intervalMs !== null && max !== null && intervalMs > max) {
    fields.interval ??= `must not be longer than the ceiling (${durationWords(max)})`;
  }
  if (jitterMs > BOUNDS.jitterMaxMs) fields.jitter ??= 'enter at most 1 hour';
  else if (intervalMs !== null && jitterMs > intervalMs / 2) {
    fields.jitter ??= `enter at most half the time between runs (${durationWords(intervalMs / 2)})`;
  }
}

/** A datetime-local text as ISO (null when empty); an error when it is not a time. */
function readTime(text: string, field: FormField, fields: FormErrors['fields']): string | null {
  if (text.trim() === '') return null;
  const iso = fromDateTimeLocal(text.trim());
  if (iso === null) fields[field] ??= 'enter a date and time';
  return iso;
}

/** The blackout rows as the API's windows (empty rows are left out); the first incomplete row is an error. */
function buildBlackouts(rows: BlackoutRow[], fields: FormErrors['fields']): Endpoint['blackouts'] {
  const windows: NonNullable<Endpoint['blackouts']> = [];
  rows.forEach((row, index) => {
    const place = `window ${index + 1}`;
    if (row.kind === 'cron') {
      const cron = row.cron.trim().replace(/\s+/g, ' ');
      if (cron === '') {
        fields.blackouts ??= `${place}: enter the cron expression that opens it`;
        return;
      }
      const duration = durationToMs(row.duration);
      if (!duration.ok || duration.ms === null) {
        fields.blackouts ??= `${place}: enter how long it lasts`;
        return;
      }
      windows.push({ cron, durationMs: duration.ms });
      return;
    }
    const from = fromDateTimeLocal(row.from);
    const to = fromDateTimeLocal(row.to);
    if (from === null || to === null) {
      fields.blackouts ??= `${place}: enter when it starts and when it ends`;
      return;
    }
    if (Date.parse(to) <= Date.parse(from)) fields.blackouts ??= `${place}: it must end after it starts`;
    windows.push({ from, to });
  });
  return windows.length > 0 ? windows : null;
}

/** The calendar fields: the active period and the blackout windows. */
export function buildCalendar(
  state: Pick<EndpointFormState, 'activeFrom' | 'activeUntil' | 'blackouts'>,
  fields: FormErrors['fields'],
): Pick<EndpointValues, 'activeFrom' | 'activeUntil' | 'blackouts'> {
  const activeFrom = readTime(state.activeFrom, 'activeFrom', fields);
  const activeUntil = readTime(state.activeUntil, 'activeUntil', fields);
  if (activeFrom !== null && activeUntil !== null && Date.parse(activeUntil) <= Date.parse(activeFrom)) {
    fields.activeUntil ??= 'must be after the start';
  }
  return { activeFrom, activeUntil, blackouts: buildBlackouts(state.blackouts, fields) };
}

/** Checks the form and builds the full set of values, or returns the errors found. */
export function buildEndpointValues(state: EndpointFormState): BuildResult {
  const fields: FormErrors['fields'] = {};
  const headerRows: Record<string, string> = {};
  const name = state.name.trim();
  if (name === '') fields.name = 'is required';
  const url = state.url.trim();
  const urlError = checkUrl(url);
  if (urlError) fields.url = urlError;

  const isCron = state.scheduleType === 'cron';
  const cron = state.cron.trim().replace(/\s+/g, ' ');
  const intervalMs = isCron ? null : readDuration(state.interval, 'interval', fields);
  if (!isCron && intervalMs === null) fields.interval ??= 'enter the time between runs';
  if (isCron && cron === '') fields.cron = 'is required';
  else if (isCron && ![5, 6].includes(cron.split(' ').length)) fields.cron = CRON_FIELDS;
  if (isCron && state.timezone.trim() === '') fields.timezone = 'is required (for example UTC or Europe/Paris)';

  const minIntervalMs = readDuration(state.minInterval, 'minInterval', fields);
  const maxIntervalMs = readDuration(state.maxInterval, 'maxInterval', fields);
  const jitterMs = readDuration(state.jitter, 'jitter', fields) ?? 0;
  checkSchedule(intervalMs, { minIntervalMs, maxIntervalMs, jitterMs }, fields);
  const calendar = buildCalendar(state, fields);
  const timeoutMs = readDuration(state.timeout, 'timeout', fields);
  if (timeoutMs === null) fields.timeout ??= 'is required';
  else if (timeoutMs < BOUNDS.timeoutMinMs || timeoutMs > BOUNDS.timeoutMaxMs) {
    fields.timeout ??= 'enter from 0.1 seconds to 5 minutes';
  }
  const retry = buildRetry(state, fields);
  const sizeKb = Number(state.maxResponseSizeKb.trim());
  if (state.maxResponseSizeKb.trim() === '' || !Number.isInteger(sizeKb) || sizeKb < 1) {
    fields.maxResponseSizeKb = 'enter a whole number of KiB, at least 1';
  }
  const headersJson = buildHeaders(state.headers, headerRows);
  const body = buildBody(state);
  if (body.error) fields.body = body.error;

  const responseRules = buildRules(state.responseRules);
  const ruleFields = responseRules.issues;

  if (Object.keys(fields).length > 0 || Object.keys(headerRows).length > 0 || Object.keys(ruleFields).length > 0) {
    return { ok: false, errors: { fields, headerRows, ruleFields, form: [] } };
  }
  return {
    ok: true,
    values: {
      name,
      description: state.description.trim() === '' ? null : state.description,
      url,
      method: state.method,
      baselineIntervalMs: intervalMs,
      baselineCron: isCron ? cron : null,
      ...(isCron ? { timezone: state.timezone.trim() } : {}),
      minIntervalMs,
      maxIntervalMs,
      jitterMs,
      missedRuns: state.missedRuns,
      ...calendar,
      timeoutMs: timeoutMs ?? 0,
      retry,
      propagateTrace: state.propagateTrace,
      maxResponseSizeKb: sizeKb,
      headersJson,
      bodyJson: body.body,
      successWhen: responseRules.successWhen,
      rules: responseRules.rules,
    },
  };
}

/** The API's defaults among the values that are never null: left out of a POST body. */
const CREATE_DEFAULTS: Partial<Record<keyof EndpointValues, unknown>> = {
  jitterMs: 0,
  missedRuns: 'latest',
  propagateTrace: true,
};

/** POST body: fields left unset or at the API's default are omitted. */
export function buildCreateBody(values: EndpointValues): CreateEndpointBody {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === null || value === undefined || CREATE_DEFAULTS[key as keyof EndpointValues] === value) continue;
    body[key] = value;
  }
  return body as CreateEndpointBody;
}

/** JSON with object keys sorted, so two header maps in a different order compare equal. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(',')}}`;
}

function isSame(key: keyof EndpointValues, next: unknown, previous: unknown): boolean {
  if (key === 'bodyJson') return JSON.stringify(next ?? null) === JSON.stringify(previous ?? null);
  return stableJson(next) === stableJson(previous);
}

/** PATCH body: only the fields whose value differs from the endpoint as loaded. */
export function buildPatchBody(values: EndpointValues, endpoint: Endpoint): UpdateEndpointBody {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(values) as (keyof EndpointValues)[]) {
    const next = values[key];
    if (next === undefined) continue;
    if (!isSame(key, next, endpoint[key])) patch[key] = next;
  }
  return patch as UpdateEndpointBody;
}
