import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { formErrorsOf, mapIssuesToForm } from './endpoint-form-issues';
import { buildCreateBody, buildEndpointValues, buildPatchBody, type EndpointValues } from './endpoint-form-request';
import {
  emptyFormState,
  formStateFromEndpoint,
  newHeaderRow,
  type Endpoint,
  type EndpointFormState,
} from './endpoint-form-state';
import { durationToMs, msToDuration, type Duration } from './endpoint-form-units';
import { buildEndpoint } from './endpoint-test-data';

/** A POST endpoint on a 5 min baseline with a masked header and a templated body. */
const endpoint = (overrides: Partial<Endpoint> = {}): Endpoint =>
  buildEndpoint({
    method: 'POST',
    baselineIntervalMs: 300_000,
    headersJson: { Authorization: '********', Accept: 'application/json' },
    bodyJson: { since: '{{lastRunAt}}' },
    ...overrides,
  });

function valuesOf(state: EndpointFormState): EndpointValues {
  const result = buildEndpointValues(state);
  if (!result.ok) throw new Error(`unexpected errors: ${JSON.stringify(result.errors)}`);
  return result.values;
}

describe('msToDuration / durationToMs', () => {
  it.each<[number | null, Duration]>([
    [null, { amount: '', unit: 'min' }],
    [1000, { amount: '1', unit: 's' }],
    [90_000, { amount: '90', unit: 's' }],
    [300_000, { amount: '5', unit: 'min' }],
    [5_400_000, { amount: '90', unit: 'min' }],
    [7_200_000, { amount: '2', unit: 'h' }],
    [1500, { amount: '1.5', unit: 's' }],
    [100, { amount: '0.1', unit: 's' }],
  ])('%s ms → %j', (ms, duration) => expect(msToDuration(ms)).toEqual(duration));

  it.each<[Duration, ReturnType<typeof durationToMs>]>([
    [
      { amount: '', unit: 'min' },
      { ok: true, ms: null },
    ],
    [
      { amount: ' 5 ', unit: 'min' },
      { ok: true, ms: 300_000 },
    ],
    [
      { amount: '1.5', unit: 'h' },
      { ok: true, ms: 5_400_000 },
    ],
    [
      { amount: '0.5', unit: 's' },
      { ok: true, ms: 500 },
    ],
    [
      { amount: '0', unit: 's' },
      { ok: false, message: 'enter a positive number' },
    ],
    [
      { amount: '-3', unit: 's' },
      { ok: false, message: 'enter a positive number' },
    ],
    [
      { amount: 'abc', unit: 's' },
      { ok: false, message: 'enter a positive number' },
    ],
  ])('%j → %j', (duration, result) => expect(durationToMs(duration)).toEqual(result));

  it.each([1000, 45_000, 300_000, 5_400_000, 86_400_000, 1500])('round-trips %d ms', (ms) => {
    expect(durationToMs(msToDuration(ms))).toEqual({ ok: true, ms });
  });
});

describe('buildEndpointValues → create body', () => {
  const base = { ...emptyFormState('Europe/Paris'), name: ' Export ', url: 'https://example.com/x' };
  it.each<[string, Partial<EndpointFormState>, Record<string, unknown>]>([
    [
      'interval, defaults',
      {},
      {
        name: 'Export',
        url: 'https://example.com/x',
        method: 'GET',
        baselineIntervalMs: 300_000,
        timeoutMs: 30_000,
        maxResponseSizeKb: 100,
      },
    ],
    [
      'cron with time zone, no interval',
      { scheduleType: 'cron', cron: ' 0  * * * * ' },
      {
        name: 'Export',
        url: 'https://example.com/x',
        method: 'GET',
        baselineCron: '0 * * * *',
        timezone: 'Europe/Paris',
        timeoutMs: 30_000,
        maxResponseSizeKb: 100,
      },
    ],
    [
      'JSON body, headers, floor and ceiling',
      {
        method: 'POST',
        bodyText: '{"since":"{{lastRunAt}}"}',
        headers: [newHeaderRow('X-Team', 'ops'), newHeaderRow('', '')],
        minInterval: { amount: '30', unit: 's' },
        maxInterval: { amount: '1', unit: 'h' },
        description: 'Poll faster while an export runs',
      },
      {
        name: 'Export',
        description: 'Poll faster while an export runs',
        url: 'https://example.com/x',
        method: 'POST',
        baselineIntervalMs: 300_000,
        minIntervalMs: 30_000,
        maxIntervalMs: 3_600_000,
        timeoutMs: 30_000,
        maxResponseSizeKb: 100,
        headersJson: { 'X-Team': 'ops' },
        bodyJson: { since: '{{lastRunAt}}' },
      },
    ],
    [
      'jitter in seconds becomes jitterMs',
      { jitter: { amount: '30', unit: 's' } },
      {
        name: 'Export',
        url: 'https://example.com/x',
        method: 'GET',
        baselineIntervalMs: 300_000,
        jitterMs: 30_000,
        timeoutMs: 30_000,
        maxResponseSizeKb: 100,
      },
    ],
    [
      'retries with their backoff become retry',
      { retryAttempts: '3', retryBase: { amount: '0.5', unit: 's' }, retryCap: { amount: '2', unit: 'min' } },
      {
        name: 'Export',
        url: 'https://example.com/x',
        method: 'GET',
        baselineIntervalMs: 300_000,
        timeoutMs: 30_000,
        retry: { attempts: 3, backoffBaseMs: 500, backoffCapMs: 120_000 },
        maxResponseSizeKb: 100,
      },
    ],
    [
      'a missed-runs policy is sent; the default (latest) is left to the API',
      { missedRuns: 'all' },
      {
        name: 'Export',
        url: 'https://example.com/x',
        method: 'GET',
        baselineIntervalMs: 300_000,
        missedRuns: 'all',
        timeoutMs: 30_000,
        maxResponseSizeKb: 100,
      },
    ],
    [
      'the trace context opt-out is sent; the default (true) is left to the API',
      { propagateTrace: false },
      {
        name: 'Export',
        url: 'https://example.com/x',
        method: 'GET',
        baselineIntervalMs: 300_000,
        timeoutMs: 30_000,
        propagateTrace: false,
        maxResponseSizeKb: 100,
      },
    ],
    [
      'text body is sent as written',
      { method: 'PUT', bodyFormat: 'text', bodyText: 'since={{lastRunAt}}' },
      {
        name: 'Export',
        url: 'https://example.com/x',
        method: 'PUT',
        baselineIntervalMs: 300_000,
        timeoutMs: 30_000,
        maxResponseSizeKb: 100,
        bodyJson: 'since={{lastRunAt}}',
      },
    ],
  ])('%s', (_, change, body) => {
    expect(buildCreateBody(valuesOf({ ...base, ...change }))).toEqual(body);
  });
});

describe('buildEndpointValues: client-side checks', () => {
  const base = { ...emptyFormState(), name: 'Export', url: 'https://example.com/x' };
  it.each<[string, Partial<EndpointFormState>, string, string]>([
    ['empty name', { name: '  ' }, 'name', 'is required'],
    ['relative URL', { url: '/hook' }, 'url', 'must be an absolute http:// or https:// URL'],
    ['ftp URL', { url: 'ftp://example.com' }, 'url', 'only http and https URLs are allowed, not ftp:'],
    ['no interval', { interval: { amount: '', unit: 'min' } }, 'interval', 'enter the time between runs'],
    ['bad interval', { interval: { amount: 'x', unit: 'min' } }, 'interval', 'enter a positive number'],
    ['empty cron', { scheduleType: 'cron', cron: '' }, 'cron', 'is required'],
    ['three-field cron', { scheduleType: 'cron', cron: '* * *' }, 'cron', 'a cron expression has five fields'],
    ['no timeout', { timeout: { amount: '', unit: 's' } }, 'timeout', 'is required'],
    ['negative jitter', { jitter: { amount: '-1', unit: 's' } }, 'jitter', 'enter a positive number'],
    ['too many retries', { retryAttempts: '6' }, 'retry', 'enter a whole number of retries from 0 to 5'],
    [
      'negative retry wait',
      { retryAttempts: '2', retryBase: { amount: '-1', unit: 's' } },
      'retry',
      'enter a positive number',
    ],
    ['fractional size', { maxResponseSizeKb: '1.5' }, 'maxResponseSizeKb', 'enter a whole number of KiB'],
    ['invalid JSON', { method: 'POST', bodyText: '{' }, 'body', 'not valid JSON'],
    ['JSON number', { method: 'POST', bodyText: '5' }, 'body', 'must be an object or an array'],
    ['body on GET', { method: 'GET', bodyText: '{}' }, 'body', 'only allowed for POST, PUT, PATCH, not GET'],
  ])('%s', (_, change, field, message) => {
    const result = buildEndpointValues({ ...base, ...change });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.fields[field as 'name']).toContain(message);
  });

  it('flags header rows: missing name, invalid name, duplicate name, renamed hidden value', () => {
    const missing = newHeaderRow('', 'x');
    const invalid = newHeaderRow('Bad Name', 'x');
    const first = newHeaderRow('X-A', '1');
    const duplicate = newHeaderRow('x-a', '2');
    const renamed = { ...newHeaderRow('X-Token-2', ''), storedName: 'X-Token', isMasked: true };
    const result = buildEndpointValues({ ...base, headers: [missing, invalid, first, duplicate, renamed] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.headerRows).toEqual({
      [missing.key]: 'enter the header name',
      [invalid.key]: 'invalid header name "Bad Name"',
      [duplicate.key]: 'header x-a is given twice (names are case-insensitive)',
      [renamed.key]: 'type the value again: the stored value is hidden and belongs to X-Token',
    });
  });
});

describe('buildPatchBody: only changed fields', () => {
  const stored = endpoint();
  const loaded = formStateFromEndpoint(stored);
  it.each<[string, Partial<EndpointFormState>, Record<string, unknown>]>([
    ['nothing changed (masked header left empty)', {}, {}],
    ['name', { name: 'Export v2' }, { name: 'Export v2' }],
    ['interval in other units, same ms', { interval: { amount: '300', unit: 's' } }, {}],
    ['interval', { interval: { amount: '10', unit: 'min' } }, { baselineIntervalMs: 600_000 }],
    [
      'switch to cron',
      { scheduleType: 'cron', cron: '0 * * * *', timezone: 'Europe/Paris' },
      { baselineIntervalMs: null, baselineCron: '0 * * * *', timezone: 'Europe/Paris' },
    ],
    ['clear the body', { bodyText: '' }, { bodyJson: null }],
    ['set a floor', { minInterval: { amount: '1', unit: 'min' } }, { minIntervalMs: 60_000 }],
    ['set a jitter', { jitter: { amount: '2', unit: 'min' } }, { jitterMs: 120_000 }],
    ['opt out of the trace context', { propagateTrace: false }, { propagateTrace: false }],
    ['skip missed runs', { missedRuns: 'skip' }, { missedRuns: 'skip' }],
    [
      'turn retries on (default backoff)',
      { retryAttempts: '2' },
      { retry: { attempts: 2, backoffBaseMs: 1000, backoffCapMs: 30_000 } },
    ],
  ])('%s', (_, change, patch) => {
    expect(buildPatchBody(valuesOf({ ...loaded, ...change }), stored)).toEqual(patch);
  });

  it('shows stored retries and sends null when they are cleared', () => {
    const retried = endpoint({ retry: { attempts: 4, backoffBaseMs: 2000, backoffCapMs: 60_000 } });
    const state = formStateFromEndpoint(retried);
    expect(state).toMatchObject({
      retryAttempts: '4',
      retryBase: { amount: '2', unit: 's' },
      retryCap: { amount: '1', unit: 'min' },
    });
    expect(buildPatchBody(valuesOf(state), retried)).toEqual({});
    expect(buildPatchBody(valuesOf({ ...state, retryAttempts: '0' }), retried)).toEqual({ retry: null });
  });

  it('clearing the jitter field sends jitterMs 0 (the API default, not null)', () => {
    const jittered = endpoint({ jitterMs: 45_000 });
    const state = formStateFromEndpoint(jittered);
    expect(state.jitter).toEqual({ amount: '45', unit: 's' });
    expect(buildPatchBody(valuesOf({ ...state, jitter: { amount: '', unit: 's' } }), jittered)).toEqual({
      jitterMs: 0,
    });
  });

  it('keeps a masked value as ******** when another header changes, sends a retyped one', () => {
    const [auth, accept] = loaded.headers;
    const changedAccept = { ...loaded, headers: [auth!, { ...accept!, value: 'text/csv' }] };
    expect(buildPatchBody(valuesOf(changedAccept), stored)).toEqual({
      headersJson: { Authorization: '********', Accept: 'text/csv' },
    });
    const retyped = { ...loaded, headers: [{ ...auth!, value: 'Bearer new' }, accept!] };
    expect(buildPatchBody(valuesOf(retyped), stored)).toEqual({
      headersJson: { Authorization: 'Bearer new', Accept: 'application/json' },
    });
  });

  it('a cron endpoint keeps its time zone unless changed', () => {
    const cron = endpoint({ baselineIntervalMs: null, baselineCron: '*/5 * * * *', timezone: 'Asia/Tokyo' });
    const state = formStateFromEndpoint(cron);
    expect(buildPatchBody(valuesOf(state), cron)).toEqual({});
    expect(buildPatchBody(valuesOf({ ...state, timezone: 'UTC' }), cron)).toEqual({ timezone: 'UTC' });
  });
});

describe('mapIssuesToForm', () => {
  const row = newHeaderRow('X-Api-Key', 'k');
  type Visible = Pick<EndpointFormState, 'scheduleType' | 'headers'>;
  const interval: Visible = { scheduleType: 'interval', headers: [row] };
  const cron: Visible = { scheduleType: 'cron', headers: [row] };
  it.each<[string, { field: string; message: string }, Visible, Record<string, unknown>]>([
    ['plain field', { field: 'url', message: 'bad' }, interval, { fields: { url: 'bad' } }],
    ['interval', { field: 'baselineIntervalMs', message: 'low' }, interval, { fields: { interval: 'low' } }],
    [
      'interval issue on a cron form',
      { field: 'baselineIntervalMs', message: 'one' },
      cron,
      { fields: { cron: 'one' } },
    ],
    ['cron', { field: 'baselineCron', message: 'bad cron' }, cron, { fields: { cron: 'bad cron' } }],
    ['floor', { field: 'minIntervalMs', message: 'm' }, interval, { fields: { minInterval: 'm' } }],
    ['timeout', { field: 'timeoutMs', message: 't' }, interval, { fields: { timeout: 't' } }],
    ['header row', { field: 'headersJson.X-Api-Key', message: 'h' }, interval, { headerRows: { [row.key]: 'h' } }],
    ['unknown header', { field: 'headersJson.Host', message: 'r' }, interval, { fields: { headers: 'r' } }],
    ['headers as a whole', { field: 'headersJson', message: 'many' }, interval, { fields: { headers: 'many' } }],
    ['body alias', { field: 'body', message: 'b' }, interval, { fields: { body: 'b' } }],
    ['hidden time zone', { field: 'timezone', message: 'tz' }, interval, { form: ['timezone: tz'] }],
    ['no field', { field: '', message: 'whole' }, interval, { form: ['whole'] }],
    ['unknown field', { field: 'extra', message: 'unknown field' }, interval, { form: ['extra: unknown field'] }],
  ])('%s', (_, issue, state, expected) => {
    expect(mapIssuesToForm([issue], state)).toEqual({ fields: {}, headerRows: {}, form: [], ...expected });
  });

  it('keeps the first message per field', () => {
    const issues = [
      { field: 'name', message: 'first' },
      { field: 'name', message: 'second' },
    ];
    expect(mapIssuesToForm(issues, interval).fields).toEqual({ name: 'first' });
  });

  it('puts errors without issues (quota, conflict, network) on top of the form', () => {
    const quota = new ApiError(403, 'QUOTA_EXCEEDED', 'minIntervalMs: the account minimum is 60000 ms');
    expect(formErrorsOf(quota, interval)).toEqual({
      fields: {},
      headerRows: {},
      form: ['minIntervalMs: the account minimum is 60000 ms'],
    });
  });
});
