/**
 * Endpoint input: one zod shape for create and patch (the API, the MCP tools and the UI share it),
 * then cross-field rules checked on the complete configuration, so a PATCH is validated against
 * the endpoint it produces, not just the fields it sends.
 *
 * Canonical spelling: headersJson / bodyJson (the documented input fields). headers / body are accepted
 * as aliases; sending both spellings of one field is an error. Responses use the canonical names.
 */
import { z } from 'zod';
import { isValidTimezone, parseCron, shortestCronGapMs } from '../schedule/cron.js';
import {
  BLACKOUTS_MAX,
  BLACKOUT_DURATION_MAX_MS,
  BLACKOUT_DURATION_MIN_MS,
  type BlackoutWindow,
} from '../schedule/calendar.js';
import { JITTER_MAX_MS } from '../schedule/jitter.js';
import { MAX_MISSED_RUNS, MISSED_RUNS, type MissedRuns } from '../schedule/slots.js';
import { autoPauseAfterFailures } from './auto-pause.js';
import { descriptionText, resourceKey, timestamp, trimmedName } from './common.js';
import {
  checkResponseRules,
  responseRules,
  successWhenInput,
  type ResponseRule,
  type SuccessWhen,
} from './response-rules.js';
import {
  HTTP_METHODS,
  LIMITS,
  MASKED_HEADER_VALUE,
  METHODS_WITH_BODY,
  RESERVED_HEADER_NAMES,
  RETRY_LIMITS,
  SENSITIVE_HEADER_PATTERN,
  type HttpMethod,
} from './limits.js';

export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Visible ASCII, space, tab and obs-text; no CR, LF or NUL (header injection).
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const intervalMs = (what: string) =>
  z
    .number({ error: 'must be a number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(LIMITS.intervalMinMs, `${what} must be at least ${LIMITS.intervalMinMs} ms`)
    .max(
      LIMITS.intervalMaxMs,
      `${what} must be at most ${LIMITS.intervalMaxMs} ms (use baselineCron for longer periods)`,
    );

const headersObject = z
  .record(z.string(), z.string({ error: 'header values must be strings' }))
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > LIMITS.headersMaxCount) {
      ctx.addIssue({ code: 'custom', message: `at most ${LIMITS.headersMaxCount} headers` });
    }
    const seen = new Set<string>();
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      if (!HEADER_NAME.test(name) || name.length > LIMITS.headerNameMaxLength) {
        ctx.addIssue({ code: 'custom', path: [name], message: `invalid header name ${JSON.stringify(name)}` });
      } else if ((RESERVED_HEADER_NAMES as readonly string[]).includes(lower)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `header ${name} is set by the service and cannot be overridden`,
        });
      } else if (seen.has(lower)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `header ${name} is given twice (names are case-insensitive)`,
        });
      }
      seen.add(lower);
      if (!HEADER_VALUE.test(value) || value.length > LIMITS.headerValueMaxLength) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `invalid value for header ${name} (no line breaks or control characters, at most ${LIMITS.headerValueMaxLength} characters)`,
        });
      }
    }
  })
  .meta({
    description: 'Custom request headers (name → value). Sensitive values are masked in responses.',
    example: { Authorization: 'Bearer …' },
  });

const bodyValue = z
  .union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())], {
    error: 'must be a string or a JSON object',
  })
  .refine((body) => byteLength(body) <= LIMITS.bodyMaxBytes, `must be at most ${LIMITS.bodyMaxBytes} bytes`)
  .meta({
    description:
      'Request body for POST, PUT, PATCH: a string sent as-is, or JSON. Templates: {{lastRunAt}}, {{scheduledAt}}, {{runId}}, {{endpointId}}, {{now}}.',
  });

export const urlValue = z
  .string()
  .max(LIMITS.urlMaxLength, `must be at most ${LIMITS.urlMaxLength} characters`)
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http:// or https:// URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: `only http and https URLs are allowed, not ${url.protocol}` });
    }
    if (url.username || url.password) {
      ctx.addIssue({ code: 'custom', message: 'credentials in the URL are not allowed; use an Authorization header' });
    }
  })
  .meta({ description: 'HTTP URL to call', example: 'https://example.com/hooks/export' });

const methodValue = z
  .preprocess(
    (value) => (typeof value === 'string' ? value.toUpperCase() : value),
    z.enum(HTTP_METHODS, { error: `must be one of ${HTTP_METHODS.join(', ')}` }),
  )
  .meta({ description: 'HTTP method (case-insensitive on input)' });

const retryMs = (what: string, min: number, max: number) =>
  z
    .number({ error: 'must be a number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(min, `${what} must be at least ${min} ms`)
    .max(max, `${what} must be at most ${max} ms`);

/** An endpoint's retries inside a run (opt-in; stored with the base and cap filled in). */
export const retrySettings = z
  .strictObject({
    attempts: z
      .number({ error: 'must be a number of attempts' })
      .int('must be a whole number')
      .min(RETRY_LIMITS.attemptsMin, `must be at least ${RETRY_LIMITS.attemptsMin}`)
      .max(RETRY_LIMITS.attemptsMax, `must be at most ${RETRY_LIMITS.attemptsMax}`)
      .meta({ description: 'More attempts after the first (1 to 5)', example: 2 }),
    backoffBaseMs: retryMs('backoffBaseMs', RETRY_LIMITS.backoffBaseMinMs, RETRY_LIMITS.backoffBaseMaxMs)
      .default(RETRY_LIMITS.backoffBaseDefaultMs)
      .meta({
        description: `Wait before the first retry; retry n waits backoffBaseMs × 2^(n−1), at most backoffCapMs (default ${RETRY_LIMITS.backoffBaseDefaultMs})`,
      }),
    backoffCapMs: retryMs('backoffCapMs', RETRY_LIMITS.backoffBaseMinMs, RETRY_LIMITS.backoffCapMaxMs)
      .default(RETRY_LIMITS.backoffCapDefaultMs)
      .meta({
        description:
          'Longest wait between attempts, also for a Retry-After header: a longer Retry-After ends the retries ' +
          `(default ${RETRY_LIMITS.backoffCapDefaultMs}; at least backoffBaseMs)`,
      }),
  })
  .meta({
    id: 'RetrySettings',
    description:
      'Retries inside one run (default null: one call per run). Retried: connection errors, timeouts, 5xx ' +
      'and 429, honouring Retry-After (seconds or an HTTP date) within backoffCapMs; never other 4xx, a blocked ' +
      'target or an invalid request. Every attempt is recorded on the run; the failure count and the failure ' +
      'backoff move once per run, on its final outcome. An attempt starts only if it can finish (its full ' +
      'timeoutMs) a second before the next planned run; otherwise the run ends failed, saying so.',
  });
export type RetrySettings = z.infer<typeof retrySettings>;

/** One blackout window: recurring (cron + durationMs) or absolute (from, to). Its cron is checked with the zone. */
export const blackoutWindow = z
  .union(
    [
      z.strictObject({
        cron: z.string().trim().max(LIMITS.cronMaxLength).meta({
          description: "Cron expression: a window opens at each of its times, in the endpoint's time zone",
          example: '0 1 * * *',
        }),
        durationMs: z
          .number({ error: 'must be a number of milliseconds' })
          .int('must be a whole number of milliseconds')
          .min(BLACKOUT_DURATION_MIN_MS, `must be at least ${BLACKOUT_DURATION_MIN_MS} ms`)
          .max(BLACKOUT_DURATION_MAX_MS, `must be at most ${BLACKOUT_DURATION_MAX_MS} ms (31 days)`)
          .meta({ description: 'How long each window lasts (real time); less than the gap between the cron times' }),
      }),
      z.strictObject({
        from: timestamp.meta({ description: 'The window opens (ISO 8601)' }),
        to: timestamp.meta({ description: 'The window closes (ISO 8601); after from' }),
      }),
    ],
    { error: 'a blackout window is { cron, durationMs } or { from, to }' },
  )
  .meta({ id: 'BlackoutWindow' });

/** Every input field, all optional: the create schema requires some, the patch schema none. */
const endpointFields = {
  key: resourceKey.nullable().meta({ description: 'Stable name for configuration files, unique per job' }),
  name: trimmedName,
  url: urlValue,
  method: methodValue,
  description: descriptionText.nullable().meta({ description: 'Natural-language instructions for the planner' }),
  baselineIntervalMs: intervalMs('baselineIntervalMs')
    .nullable()
    .meta({ description: 'Milliseconds between runs (exactly one of this or baselineCron)', example: 60000 }),
  baselineCron: z.string().trim().max(LIMITS.cronMaxLength).nullable().meta({
    description: 'Cron expression, five fields (exactly one of this or baselineIntervalMs)',
    example: '*/5 * * * *',
  }),
  timezone: z.string().refine(isValidTimezone, 'must be an IANA time zone such as Europe/Berlin').meta({
    description: 'IANA time zone for baselineCron (default UTC)',
  }),
  minIntervalMs: intervalMs('minIntervalMs')
    .nullable()
    .meta({ description: 'Safety floor on the interval between runs' }),
  maxIntervalMs: intervalMs('maxIntervalMs').nullable().meta({ description: 'Ceiling on the interval between runs' }),
  jitterMs: z
    .number()
    .int('must be a whole number of milliseconds')
    .min(0, 'must be 0 or more')
    .max(JITTER_MAX_MS, `must be at most ${JITTER_MAX_MS} ms (one hour)`)
    .meta({
      description:
        'Each planned run moves later by an offset in [0, jitterMs] fixed by its run id (scheduledAt is the moved ' +
        'time), never past maxIntervalMs; pause ends and one-shot hints stay exact. Default 0 (exact times). ' +
        `At most ${JITTER_MAX_MS} and at most half of baselineIntervalMs, or of the shortest gap between baselineCron's runs`,
      example: 0,
    }),
  missedRuns: z.enum(MISSED_RUNS, { error: `must be one of ${MISSED_RUNS.join(', ')}` }).meta({
    description:
      'What runs for baseline slots missed while the scheduler was away (an outage, a paused job): latest (default: ' +
      'one run, for the latest missed slot), skip (none: the next slot in the future), all (each missed slot once, ' +
      `oldest first, at least a second apart; at most the ${MAX_MISSED_RUNS} most recent)`,
    example: 'latest',
  }),
  activeFrom: timestamp.nullable().meta({
    description: 'No run starts before this time (ISO 8601); null: no start. Default null',
  }),
  activeUntil: timestamp.nullable().meta({
    description: 'No run starts at or after this time (ISO 8601); after activeFrom; null: no end. Default null',
  }),
  blackouts: z
    .array(blackoutWindow)
    .max(BLACKOUTS_MAX, `at most ${BLACKOUTS_MAX} blackout windows`)
    .nullable()
    .meta({
      description:
        'Windows during which no run starts (default null: none): the next run is the first slot after the ' +
        "window, a one-shot hint or pause end inside one moves to its end. { cron, durationMs } in the endpoint's " +
        `time zone, or { from, to }; at most ${BLACKOUTS_MAX}`,
    }),
  autoPauseAfterFailures,
  timeoutMs: z
    .number()
    .int('must be a whole number of milliseconds')
    .min(LIMITS.timeoutMinMs, `must be at least ${LIMITS.timeoutMinMs} ms`)
    .max(LIMITS.timeoutMaxMs, `must be at most ${LIMITS.timeoutMaxMs} ms`)
    .meta({ description: `Request timeout, whole request including the body (default ${LIMITS.timeoutDefaultMs})` }),
  maxResponseSizeKb: z
    .number()
    .int('must be a whole number of KiB')
    .min(1, 'must be at least 1')
    .max(LIMITS.maxResponseSizeMaxKb, `must be at most ${LIMITS.maxResponseSizeMaxKb}`)
    .meta({
      description: `Response bytes kept; larger bodies are truncated and flagged (default ${LIMITS.maxResponseSizeDefaultKb})`,
    }),
  retry: retrySettings.nullable(),
  successWhen: successWhenInput.nullable(),
  rules: responseRules.nullable(),
  propagateTrace: z.boolean().meta({
    description:
      "Send the execution's W3C trace context (traceparent, tracestate) with the request, so the target's own " +
      'tracing joins the trace. Only when the deployment has OpenTelemetry tracing on (OTEL_EXPORTER_OTLP_ENDPOINT); ' +
      'without it no trace header is ever sent. Default true; false opts this endpoint out',
  }),
  headersJson: headersObject.nullable(),
  headers: headersObject.nullable().meta({ description: 'Alias of headersJson' }),
  bodyJson: bodyValue.nullable(),
  body: bodyValue.nullable().meta({ description: 'Alias of bodyJson' }),
};

export const createEndpointInput = z
  .strictObject({
    ...endpointFields,
    key: endpointFields.key.optional(),
    name: endpointFields.name,
    url: endpointFields.url,
    method: endpointFields.method,
    description: endpointFields.description.optional(),
    baselineIntervalMs: endpointFields.baselineIntervalMs.optional(),
    baselineCron: endpointFields.baselineCron.optional(),
    timezone: endpointFields.timezone.optional(),
    minIntervalMs: endpointFields.minIntervalMs.optional(),
    maxIntervalMs: endpointFields.maxIntervalMs.optional(),
    jitterMs: endpointFields.jitterMs.optional(),
    missedRuns: endpointFields.missedRuns.optional(),
    activeFrom: endpointFields.activeFrom.optional(),
    activeUntil: endpointFields.activeUntil.optional(),
    blackouts: endpointFields.blackouts.optional(),
    autoPauseAfterFailures: endpointFields.autoPauseAfterFailures.optional(),
    timeoutMs: endpointFields.timeoutMs.optional(),
    maxResponseSizeKb: endpointFields.maxResponseSizeKb.optional(),
    retry: endpointFields.retry.optional(),
    successWhen: endpointFields.successWhen.optional(),
    rules: endpointFields.rules.optional(),
    propagateTrace: endpointFields.propagateTrace.optional(),
    headersJson: endpointFields.headersJson.optional(),
    headers: endpointFields.headers.optional(),
    bodyJson: endpointFields.bodyJson.optional(),
    body: endpointFields.body.optional(),
  })
  .meta({ id: 'CreateEndpointInput' });

export const updateEndpointInput = z
  .strictObject(
    Object.fromEntries(Object.entries(endpointFields).map(([key, schema]) => [key, schema.optional()])) as {
      [K in keyof typeof endpointFields]: z.ZodOptional<(typeof endpointFields)[K]>;
    },
  )
  .meta({
    id: 'UpdateEndpointInput',
    description: 'Any subset of the endpoint input fields; null clears an optional field',
  });

export type CreateEndpointInput = z.infer<typeof createEndpointInput>;
export type UpdateEndpointInput = z.infer<typeof updateEndpointInput>;

/** The complete, normalised configuration of an endpoint (what is stored). */
export interface EndpointConfig {
  /** The configuration files' name for it (unique per job); null: none. */
  key: string | null;
  name: string;
  url: string;
  method: HttpMethod;
  description: string | null;
  baselineIntervalMs: number | null;
  baselineCron: string | null;
  timezone: string;
  minIntervalMs: number | null;
  maxIntervalMs: number | null;
  /** 0: runs at the planned times (core/schedule/jitter.ts). */
  jitterMs: number;
  /** Slots missed while the scheduler was away: latest (default), skip or all (core/schedule/slots.ts). */
  missedRuns: MissedRuns;
  /** The active period's bounds, ISO 8601 UTC (null: open); core/schedule/calendar.ts. */
  activeFrom: string | null;
  activeUntil: string | null;
  /** null: no blackout windows. */
  blackouts: BlackoutWindow[] | null;
  /** null: the account's default (auto-pause; both null = never). */
  autoPauseAfterFailures: number | null;
  timeoutMs: number;
  maxResponseSizeKb: number;
  /** null: one call per run. */
  retry: RetrySettings | null;
  /** Trace context to the target while tracing is on (docs/operations/observability.md "Tracing"); false: never. */
  propagateTrace: boolean;
  /** null: HTTP 2xx/3xx succeed; else decided from the response (response-rules.ts). */
  successWhen: SuccessWhen | null;
  /** null: no response rules. */
  rules: ResponseRule[] | null;
  headers: Record<string, string> | null;
  body: EndpointBody | null;
}
export type EndpointBody = string | Record<string, unknown> | unknown[];

/** What a created endpoint has where its input is silent (name, url and method are always given). */
export const ENDPOINT_DEFAULTS: Readonly<EndpointConfig> = {
  key: null,
  name: '',
  url: '',
  method: 'GET',
  description: null,
  baselineIntervalMs: null,
  baselineCron: null,
  timezone: 'UTC',
  minIntervalMs: null,
  maxIntervalMs: null,
  jitterMs: 0,
  missedRuns: 'latest',
  activeFrom: null,
  activeUntil: null,
  blackouts: null,
  autoPauseAfterFailures: null,
  timeoutMs: LIMITS.timeoutDefaultMs,
  maxResponseSizeKb: LIMITS.maxResponseSizeDefaultKb,
  retry: null,
  propagateTrace: true,
  successWhen: null,
  rules: null,
  headers: null,
  body: null,
};

export interface FieldIssue {
  field: string;
  message: string;
}

/** Resolves the headers/body spellings; both spellings of one field is an error. */
function pickAlias<T>(
  input: Record<string, unknown>,
  canonical: string,
  alias: string,
  issues: FieldIssue[],
): { given: boolean; value: T | null } {
  const hasCanonical = input[canonical] !== undefined;
  const hasAlias = input[alias] !== undefined;
  if (hasCanonical && hasAlias) {
    issues.push({ field: canonical, message: `give either ${canonical} or ${alias}, not both` });
  }
  if (hasCanonical) return { given: true, value: input[canonical] as T | null };
  if (hasAlias) return { given: true, value: input[alias] as T | null };
  return { given: false, value: null };
}

/**
 * Applies an input (create: onto defaults; patch: onto the stored configuration) and checks the
 * cross-field rules. Setting one baseline in a patch replaces the other (exactly one is allowed).
 */
export function applyEndpointInput(
  base: EndpointConfig | null,
  input: CreateEndpointInput | UpdateEndpointInput,
): { config: EndpointConfig; issues: FieldIssue[] } {
  const issues: FieldIssue[] = [];
  const raw = input as Record<string, unknown>;
  const headers = pickAlias<Record<string, string>>(raw, 'headersJson', 'headers', issues);
  const body = pickAlias<EndpointBody>(raw, 'bodyJson', 'body', issues);
  const config: EndpointConfig = { ...(base ?? ENDPOINT_DEFAULTS) };
  const assign = <K extends keyof EndpointConfig>(key: K, value: EndpointConfig[K] | undefined) => {
    if (value !== undefined) config[key] = value;
  };
  assign('key', input.key);
  assign('name', input.name);
  assign('url', input.url);
  assign('method', input.method);
  assign('description', input.description);
  assign('timezone', input.timezone);
  assign('minIntervalMs', input.minIntervalMs);
  assign('maxIntervalMs', input.maxIntervalMs);
  assign('jitterMs', input.jitterMs);
  assign('missedRuns', input.missedRuns);
  assign('activeFrom', isoOrNull(input.activeFrom));
  assign('activeUntil', isoOrNull(input.activeUntil));
  assign('blackouts', input.blackouts);
  assign('autoPauseAfterFailures', input.autoPauseAfterFailures);
  assign('timeoutMs', input.timeoutMs);
  assign('maxResponseSizeKb', input.maxResponseSizeKb);
  assign('retry', input.retry);
  assign('propagateTrace', input.propagateTrace);
  assign('successWhen', input.successWhen);
  assign('rules', input.rules);
  if (headers.given) config.headers = headers.value;
  if (body.given) config.body = body.value;

  const setsInterval = input.baselineIntervalMs !== undefined && input.baselineIntervalMs !== null;
  const setsCron = input.baselineCron !== undefined && input.baselineCron !== null;
  if (setsInterval && setsCron) {
    issues.push({ field: 'baselineCron', message: 'give exactly one of baselineCron or baselineIntervalMs, not both' });
  }
  if (input.baselineIntervalMs !== undefined) config.baselineIntervalMs = input.baselineIntervalMs;
  if (input.baselineCron !== undefined) config.baselineCron = input.baselineCron;
  if (base && setsInterval && !setsCron) config.baselineCron = null;
  if (base && setsCron && !setsInterval) config.baselineIntervalMs = null;

  issues.push(...checkEndpointConfig(config));
  return { config, issues };
}

/** Cross-field rules on a complete configuration. */
export function checkEndpointConfig(config: EndpointConfig): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const hasInterval = config.baselineIntervalMs !== null;
  const hasCron = config.baselineCron !== null;
  if (hasInterval === hasCron) {
    issues.push({
      field: 'baselineIntervalMs',
      message: 'exactly one of baselineCron or baselineIntervalMs is required as the baseline schedule',
    });
  }
  if (config.baselineCron !== null) {
    const parsed = parseCron(config.baselineCron, config.timezone);
    if (!parsed.ok) issues.push({ field: 'baselineCron', message: `invalid cron expression: ${parsed.message}` });
    // As for an interval (below): a jittered run must stay before the next slot's earliest time, or the
    // executor would take that slot as already recorded and skip it.
    const gapMs = parsed.ok && config.jitterMs > 0 ? shortestCronGapMs(config.baselineCron, config.timezone) : null;
    if (gapMs !== null && config.jitterMs > gapMs / 2) {
      issues.push({
        field: 'jitterMs',
        message: `jitterMs (${config.jitterMs}) must be at most half of the shortest gap between baselineCron's runs (${gapMs} ms)`,
      });
    }
  }
  const { minIntervalMs: min, maxIntervalMs: max, baselineIntervalMs: interval } = config;
  if (min !== null && max !== null && min > max) {
    issues.push({ field: 'minIntervalMs', message: `minIntervalMs (${min}) must not exceed maxIntervalMs (${max})` });
  }
  if (interval !== null && min !== null && interval < min) {
    issues.push({
      field: 'baselineIntervalMs',
      message: `baselineIntervalMs (${interval}) is below minIntervalMs (${min})`,
    });
  }
  if (interval !== null && max !== null && interval > max) {
    issues.push({
      field: 'baselineIntervalMs',
      message: `baselineIntervalMs (${interval}) is above maxIntervalMs (${max})`,
    });
  }
  // The next slot is found from the last run's planned time, and a slot at or before the last start
  // counts as served: jitter plus dispatch lateness must stay under one interval, so jitter gets half.
  if (interval !== null && config.jitterMs > interval / 2) {
    issues.push({
      field: 'jitterMs',
      message: `jitterMs (${config.jitterMs}) must be at most half of baselineIntervalMs (${interval})`,
    });
  }
  issues.push(...checkCalendar(config));
  if (config.retry !== null && config.retry.backoffCapMs < config.retry.backoffBaseMs) {
    issues.push({
      field: 'retry.backoffCapMs',
      message: `retry.backoffCapMs (${config.retry.backoffCapMs}) must be at least retry.backoffBaseMs (${config.retry.backoffBaseMs})`,
    });
  }
  // Interval rules on a cron baseline, whichever field changed (the whole configuration is checked).
  issues.push(...checkResponseRules(config, null));
  if (config.body !== null && !METHODS_WITH_BODY.includes(config.method)) {
    issues.push({
      field: 'bodyJson',
      message: `a request body is only allowed for ${METHODS_WITH_BODY.join(', ')}, not ${config.method}`,
    });
  }
  return issues;
}

/** A time as stored and answered: ISO 8601 UTC (undefined: not given). */
function isoOrNull(value: string | null | undefined): string | null | undefined {
  return value === undefined || value === null ? value : new Date(value).toISOString();
}

/** The calendar's cross-field rules: an active period that ends after it starts, windows that end. */
function checkCalendar(config: EndpointConfig): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const { activeFrom, activeUntil } = config;
  if (activeFrom !== null && activeUntil !== null && Date.parse(activeUntil) <= Date.parse(activeFrom)) {
    issues.push({
      field: 'activeUntil',
      message: `activeUntil (${activeUntil}) must be after activeFrom (${activeFrom})`,
    });
  }
  (config.blackouts ?? []).forEach((window, index) => {
    const field = `blackouts[${index}]`;
    if (!('cron' in window)) {
      if (Date.parse(window.to) <= Date.parse(window.from)) {
        issues.push({ field: `${field}.to`, message: `the window's to (${window.to}) must be after its from` });
      }
      return;
    }
    const parsed = parseCron(window.cron, config.timezone);
    if (!parsed.ok) {
      issues.push({ field: `${field}.cron`, message: `invalid cron expression: ${parsed.message}` });
      return;
    }
    // A window as long as the gap to the next cron time would never close.
    const gapMs = shortestCronGapMs(window.cron, config.timezone);
    if (window.durationMs >= gapMs) {
      issues.push({
        field: `${field}.durationMs`,
        message: `durationMs (${window.durationMs}) must be less than the shortest gap between the cron's times (${gapMs} ms)`,
      });
    }
  });
  return issues;
}

/** Headers as every response shows them: sensitive values replaced by the mask. */
/**
 * A value that holds shared-secret references and at most a scheme word (`Bearer {{secrets.TOKEN}}`)
 * shows no secret: it is answered as written, so the reference stays visible.
 */
const SECRET_REFERENCE = /\{\{\s*secrets\.[A-Za-z_][A-Za-z0-9_]{0,63}\s*\}\}/g;
const SCHEME_WORD_ONLY = /^[A-Za-z-]{0,20} *$/;
function onlySecretReferences(value: string): boolean {
  if (!value.includes('{{')) return false;
  const rest = value.replace(SECRET_REFERENCE, '');
  return rest !== value && SCHEME_WORD_ONLY.test(rest);
}

export function maskHeaders(headers: Record<string, string> | null): Record<string, string> | null {
  if (!headers) return null;
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      SENSITIVE_HEADER_PATTERN.test(name) && !onlySecretReferences(value) ? MASKED_HEADER_VALUE : value,
    ]),
  );
}

/**
 * A masked header value sent back keeps the stored secret (clients can send back what they read).
 * Returns the names still masked: those with no stored value to keep.
 */
export function keepMaskedHeaders(next: EndpointConfig, stored: EndpointConfig | null): string[] {
  if (!next.headers) return [];
  const storedByName = new Map(
    Object.entries(stored?.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const unknown: string[] = [];
  for (const [name, value] of Object.entries(next.headers)) {
    if (value !== MASKED_HEADER_VALUE) continue;
    const previous = storedByName.get(name.toLowerCase());
    if (previous !== undefined) next.headers[name] = previous;
    else unknown.push(name);
  }
  return unknown;
}

function byteLength(body: EndpointBody): number {
  return Buffer.byteLength(typeof body === 'string' ? body : JSON.stringify(body));
}
