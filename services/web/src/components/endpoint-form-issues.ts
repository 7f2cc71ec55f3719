/**
 * The API's VALIDATION_ERROR issues (details.issues[].field, e.g. "baselineIntervalMs" or
 * "headersJson.X-Api-Key") → the form field, header row or top-of-form list that shows them.
 * The API speaks of durations in milliseconds and by its field names ("baselineIntervalMs must be at
 * least 1000 ms"); a duration field shows what it takes in its own words instead (DURATION_WORDS).
 */
import { ApiError, type FieldIssue } from '../api/client';
import type { EndpointFormState, FormErrors, FormField } from './endpoint-form-state';
import { ruleFieldOf } from './rules-format';

const FIELD_OF_ISSUE: Record<string, FormField> = {
  name: 'name',
  description: 'description',
  url: 'url',
  method: 'method',
  baselineIntervalMs: 'interval',
  baselineCron: 'cron',
  timezone: 'timezone',
  minIntervalMs: 'minInterval',
  maxIntervalMs: 'maxInterval',
  jitterMs: 'jitter',
  missedRuns: 'missedRuns',
  activeFrom: 'activeFrom',
  activeUntil: 'activeUntil',
  blackouts: 'blackouts',
  timeoutMs: 'timeout',
  retry: 'retry',
  maxResponseSizeKb: 'maxResponseSizeKb',
  headersJson: 'headers',
  headers: 'headers',
  bodyJson: 'body',
  body: 'body',
};

/**
 * What each duration field takes, in the form's words (the API's bounds: LIMITS and RETRY_LIMITS in
 * @kairos/core, and its cross-field rules). The form checks the same before sending
 * (endpoint-form-request.ts); these are for what only the API can tell.
 */
export const DURATION_WORDS: Partial<Record<FormField, string>> = {
  interval:
    'enter a time between runs of at least 1 second and at most 24 days, within the safety floor and the ceiling',
  minInterval: 'enter at least 1 second and at most 24 days, no longer than the ceiling or the time between runs',
  maxInterval: 'enter at least 1 second and at most 24 days, no shorter than the safety floor or the time between runs',
  jitter: 'enter at most 1 hour, and at most half the time between runs (or between the cron schedule’s runs)',
  timeout: 'enter from 0.1 seconds to 5 minutes',
  retry:
    'the first retry waits from 0.1 seconds to 1 minute, the longest wait from 0.1 seconds to 5 minutes and not less than the first',
};

type VisibleState = Pick<EndpointFormState, 'scheduleType' | 'headers'>;

/** Fields the form does not show for the chosen schedule type. */
function isHidden(field: FormField, state: VisibleState): boolean {
  if (state.scheduleType === 'cron') return field === 'interval';
  return field === 'cron' || field === 'timezone';
}

/**
 * Where one issue goes. Both baseline fields go to the visible schedule input ("exactly one of
 * baselineCron or baselineIntervalMs" is about whichever is shown). Anything else without a
 * visible field goes to the top of the form, prefixed with its API name.
 */
function placeIssue(issue: FieldIssue, state: VisibleState, errors: FormErrors): void {
  const ruleField = ruleFieldOf(issue.field);
  if (ruleField) {
    errors.ruleFields = { ...errors.ruleFields, [ruleField]: errors.ruleFields?.[ruleField] ?? issue.message };
    return;
  }
  const [head = '', ...rest] = issue.field.split('.');
  // A list item's issue (blackouts[2].cron) belongs to the list's field.
  let field = FIELD_OF_ISSUE[head.replace(/\[\d+\]$/, '')];
  if (field === 'interval' || field === 'cron') field = state.scheduleType === 'cron' ? 'cron' : 'interval';
  if (field === 'headers' && rest.length > 0) {
    const headerName = rest.join('.');
    const row = state.headers.find((candidate) => candidate.name.trim() === headerName);
    if (row) {
      errors.headerRows[row.key] ??= issue.message;
      return;
    }
  }
  if (field && !isHidden(field, state)) {
    errors.fields[field] ??= issue.message;
    return;
  }
  errors.form.push(issue.field ? `${issue.field}: ${issue.message}` : issue.message);
}

export function mapIssuesToForm(issues: FieldIssue[], state: VisibleState): FormErrors {
  const errors: FormErrors = { fields: {}, headerRows: {}, form: [] };
  for (const issue of issues) placeIssue(issue, state, errors);
  return errors;
}

/** Any error of a save: VALIDATION_ERROR issues onto the form, durations in its words; otherwise the message on top. */
export function formErrorsOf(error: unknown, state: VisibleState): FormErrors {
  if (error instanceof ApiError && error.issues.length > 0) {
    const errors = mapIssuesToForm(error.issues, state);
    for (const field of Object.keys(errors.fields) as FormField[]) {
      const words = DURATION_WORDS[field];
      if (words) errors.fields[field] = words;
    }
    return errors;
  }
  const message = error instanceof Error ? error.message : String(error);
  return { fields: {}, headerRows: {}, form: [message] };
}
