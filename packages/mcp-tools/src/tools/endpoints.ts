import {
  LIMITS,
  backtestInput,
  backtestResultRecord,
  createEndpointInput,
  endpointRecord,
  pagingQuery,
  pauseEndpointInput,
  pauseResult,
  upcomingDraftInput,
  upcomingQuery,
  upcomingRunsResult,
  updateEndpointInput,
  type EndpointRecord,
} from '@kairos/core';
import { z } from 'zod';
import { fetchPage, unwrap, type KairosClient } from '@kairos/client';
import { CHANGE, IDEMPOTENT_CHANGE, READ_ONLY, asOutput, defineListTool, defineTool, idArg } from '../tool.js';

const endpointId = idArg('endpoint');
const jobId = idArg('job');
/** Optional on tools addressed by endpoint id: looked up when absent. */
const parentJobId = idArg('job').optional().meta({ description: "The endpoint's job id (looked up when omitted)" });
const endpoint = asOutput(endpointRecord);

export const describeSchedule = (record: EndpointRecord): string => {
  const baseline = record.baselineCron
    ? `cron "${record.baselineCron}" (${record.timezone})`
    : `every ${record.baselineIntervalMs} ms`;
  const next = record.nextRunAt ? `next run ${record.nextRunAt}` : 'nothing scheduled';
  const rule = record.ruleState ? `, ${record.ruleState.explanation}` : '';
  const held = record.nextRunCalendar ? ` (${describeCalendarHold(record.nextRunCalendar)})` : '';
  return `Endpoint "${record.name}" (${record.id}) is ${record.status}, ${baseline}${rule}, ${next}${held}, ${record.failureCount} consecutive failures`;
};

/** "moved past blackout window 0 (… to …)" or "held until activeFrom …". */
const describeCalendarHold = (hold: NonNullable<EndpointRecord['nextRunCalendar']>): string =>
  hold.kind === 'blackout'
    ? `moved past blackout window ${hold.index} (${hold.from} to ${hold.to})`
    : `held until activeFrom ${hold.to}`;

/** What the endpoint tools say about calendars. */
const CALENDAR_HELP =
  'Calendars (default none): activeFrom / activeUntil (ISO times; no run starts outside [activeFrom, activeUntil), ' +
  'activeUntil after activeFrom) and blackouts, at most 50 windows during which no run starts: { cron, durationMs } ' +
  "(a window opens at each cron time in the endpoint's time zone and lasts durationMs, less than the gap between " +
  'the cron times) or { from, to } (ISO times). A run inside a window moves to the first slot after it; a ' +
  "one-shot hint inside one to the window's end. ";

/** What the endpoint tools say about successWhen and rules (the response rules). */
const RESPONSE_RULES_HELP =
  'successWhen (default null: HTTP 2xx/3xx succeed) is { status?: ["2xx", 304], all?: [condition] }: a run succeeds ' +
  'when its status is listed and every condition holds, else it fails (errorKind assertion_failed, counted as any ' +
  'failure). rules (default null, at most 20) is [{ name, when: { status?, runStatus?: success|failed, all?, any? }, ' +
  'then: { intervalMs? | pauseMs?, runEndpoint?: sibling endpoint id, analyse?: true } }], evaluated after every run ' +
  'at no token cost: intervalMs runs the endpoint at that interval while the rule keeps matching (interval ' +
  'baselines only), pauseMs pauses it, runEndpoint runs another endpoint of the job once now, analyse starts a ' +
  'planner analysis. A condition is { path, op, value? }: path $ (the body), $.a.b, $.items[0], $status, ' +
  '$durationMs; op eq, ne, gt, gte, lt, lte, exists, missing, contains, matches (RE2). Try them first with ' +
  'backtestEndpoint.';

const getEndpoint = (api: KairosClient, endpointId: string) =>
  unwrap(api.GET('/api/endpoints/{endpointId}', { params: { path: { endpointId } } }));

const jobOf = async (api: KairosClient, id: string, given: string | undefined) =>
  given ?? (await getEndpoint(api, id)).jobId;

export const endpointTools = [
  defineTool({
    name: 'addEndpoint',
    title: 'Add an endpoint to a job',
    description:
      'Adds an endpoint (an HTTP request with a baseline schedule) to a job; it starts executing at once on ' +
      'its baseline. Give exactly one of baselineIntervalMs (milliseconds between runs, at least 1000) or ' +
      'baselineCron (five fields, in timezone, default UTC). minIntervalMs/maxIntervalMs bound every ' +
      'interval (AI hints included). jitterMs (default 0, at most 3600000 and half the interval) moves each ' +
      'run later by a fixed per-run offset in [0, jitterMs] to spread load. retry (default null: one call per run) ' +
      'is { attempts: 1-5 more calls, backoffBaseMs (default 1000), backoffCapMs (default 30000) }: connection ' +
      'errors, timeouts, 5xx and 429 are retried within the run with exponential backoff, honouring Retry-After ' +
      'within the cap and never into the next planned run; the run records every attempt and counts one failure. ' +
      'autoPauseAfterFailures (1 to 1000, ' +
      "default null = the account's default, off unless set) pauses the endpoint after that many consecutive " +
      'failures. propagateTrace (default true) sends the W3C traceparent/tracestate of the execution with the ' +
      'request, only when the deployment has OpenTelemetry tracing on; false never sends them. description tells the AI planner how to adapt the schedule from the ' +
      'responses. headersJson/bodyJson (aliases headers/body) set the request; bodyJson only for POST, PUT, PATCH. ' +
      CALENDAR_HELP +
      RESPONSE_RULES_HELP,
    input: z.strictObject({ jobId, ...createEndpointInput.shape }),
    output: endpoint,
    annotations: CHANGE,
    run: (api, { jobId, ...body }) =>
      unwrap(api.POST('/api/jobs/{jobId}/endpoints', { params: { path: { jobId } }, body })),
    summarize: (record) => `Added. ${describeSchedule(record)}.`,
  }),
  defineListTool({
    name: 'listEndpoints',
    title: "List a job's endpoints",
    description: "Lists a job's endpoints, oldest first, with their schedule state (archived ones on request).",
    input: z.strictObject({
      jobId,
      ...pagingQuery(LIMITS.listDefaultLimit).shape,
      includeArchived: z.boolean().optional().meta({ description: 'Include archived endpoints (default false)' }),
    }),
    key: 'endpoints',
    item: endpointRecord,
    list: (api, { jobId, includeArchived, ...paging }) =>
      fetchPage(
        (page) =>
          api.GET('/api/jobs/{jobId}/endpoints', {
            params: { path: { jobId }, query: { ...page, includeArchived: includeArchived ? 'true' : 'false' } },
          }),
        paging,
      ),
  }),
  defineTool({
    name: 'getEndpoint',
    title: 'Get an endpoint',
    description:
      'One endpoint: request, baseline schedule, bounds, status, nextRunAt, lastRunAt, failure count and ' +
      'backoff, pause and the active AI hints.',
    input: z.strictObject({ id: endpointId }),
    output: endpoint,
    annotations: READ_ONLY,
    run: (api, args) => getEndpoint(api, args.id),
    summarize: (record) => `${describeSchedule(record)}.`,
  }),
  defineTool({
    name: 'updateEndpoint',
    title: 'Update an endpoint',
    description:
      'Changes any subset of the endpoint input fields (null clears an optional field). Setting one baseline ' +
      'replaces the other. retry is replaced as a whole (null: no retries). The resulting configuration is ' +
      'validated as a whole. A masked header value ' +
      '(********) keeps the stored one. Archived endpoints are read-only. rules are replaced as a whole (null: ' +
      'none). blackouts are replaced as a whole (null: none). ' +
      CALENDAR_HELP +
      RESPONSE_RULES_HELP,
    input: z.strictObject({ id: endpointId, jobId: parentJobId, ...updateEndpointInput.shape }),
    output: endpoint,
    annotations: IDEMPOTENT_CHANGE,
    run: async (api, { id, jobId: job, ...body }) =>
      unwrap(
        api.PATCH('/api/jobs/{jobId}/endpoints/{endpointId}', {
          params: { path: { jobId: await jobOf(api, id, job), endpointId: id } },
          body,
        }),
      ),
    summarize: (record) => `Updated. ${describeSchedule(record)}.`,
  }),
  defineTool({
    name: 'backtestEndpoint',
    title: 'Backtest response rules',
    description:
      "Replays the endpoint's latest recorded scheduled runs (limit, default 500, at most 5000) through proposed " +
      "successWhen and rules (absent: the endpoint's own; null: none), changing nothing: which runs' status would " +
      'change, which rules each run matches, the schedule the rules would have applied and the calls a day it ' +
      'implies, against the same figures as recorded. Use it before updateEndpoint.',
    input: z.strictObject({ id: endpointId, ...backtestInput.shape }),
    output: asOutput(backtestResultRecord),
    annotations: READ_ONLY,
    run: (api, { id, ...body }) =>
      unwrap(api.POST('/api/endpoints/{endpointId}/backtest', { params: { path: { endpointId: id } }, body })),
    summarize: (result) =>
      `Replayed ${result.runsReplayed} runs: ${result.statusChanges.length} would change status ` +
      `(${result.replayed.successCount} successes against ${result.recorded.successCount} recorded); ` +
      `${result.runs.filter((run) => run.rulesMatched.length > 0).length} match a rule; ` +
      `${result.replayed.callsPerDay ?? '–'} calls a day against ${result.recorded.callsPerDay ?? '–'} recorded.`,
  }),
  defineTool({
    name: 'upcomingRuns',
    title: 'Preview the next runs',
    description:
      'The next planned run times (count, default 10, at most 100), soonest first, each with its source ' +
      '(baseline-cron, baseline-interval, ai-interval, ai-oneshot, rule-interval, rule), from the scheduling rules as ' +
      'they stand: pause, hints until they expire, backoff for the current failures, min/max bounds, cron in the ' +
      "endpoint's time zone, the calendar (a run a blackout window or activeFrom moved names it in calendar). Give " +
      'any of baselineIntervalMs, baselineCron, timezone, minIntervalMs, maxIntervalMs, jitterMs, activeFrom, ' +
      'activeUntil, blackouts to preview a change before updateEndpoint; nothing is changed. With jitter, each run after the first ' +
      'starts up to jitterMs after its time.',
    input: z.strictObject({ id: endpointId, count: upcomingQuery.shape.count.optional(), ...upcomingDraftInput.shape }),
    output: asOutput(upcomingRunsResult),
    annotations: READ_ONLY,
    run: (api, { id, count, ...draft }) => {
      const params = { path: { endpointId: id }, query: count === undefined ? {} : { count } };
      return Object.values(draft).some((value) => value !== undefined)
        ? unwrap(api.POST('/api/endpoints/{endpointId}/upcoming', { params, body: draft }))
        : unwrap(api.GET('/api/endpoints/{endpointId}/upcoming', { params }));
    },
    summarize: (result) =>
      result.runs.length === 0
        ? 'No upcoming runs (archived, or its job is paused).'
        : `Next ${result.runs.length} runs: ${result.runs
            .map((run) => `${run.at} (${run.source}${run.calendar ? `, ${describeCalendarHold(run.calendar)}` : ''})`)
            .join(', ')}.`,
  }),
  defineTool({
    name: 'archiveEndpoint',
    title: 'Archive an endpoint',
    description: 'Archives an endpoint: it stops for good and test runs are refused. Idempotent.',
    input: z.strictObject({ id: endpointId, jobId: parentJobId }),
    output: z.object({ success: z.literal(true), endpoint: endpointRecord }),
    annotations: { ...IDEMPOTENT_CHANGE, destructiveHint: true },
    run: async (api, { id, jobId: job }) =>
      unwrap(
        api.POST('/api/jobs/{jobId}/endpoints/{endpointId}/archive', {
          params: { path: { jobId: await jobOf(api, id, job), endpointId: id } },
        }),
      ),
    summarize: (result) => `Archived endpoint "${result.endpoint.name}" (${result.endpoint.id}).`,
  }),
  defineTool({
    name: 'pauseEndpoint',
    title: 'Pause or resume an endpoint',
    description:
      'pausedUntil (ISO 8601, in the future) pauses the endpoint until then, overriding the baseline and all ' +
      'hints (which stay and apply again afterwards); pausedUntil null resumes it immediately.',
    input: z.strictObject({ id: endpointId, ...pauseEndpointInput.shape }),
    output: asOutput(pauseResult),
    annotations: IDEMPOTENT_CHANGE,
    run: (api, { id, ...body }) =>
      unwrap(api.POST('/api/endpoints/{endpointId}/pause', { params: { path: { endpointId: id } }, body })),
    summarize: (result) =>
      `${result.pausedUntil ? `Paused until ${result.pausedUntil}.` : 'Resumed.'} ${describeSchedule(result.endpoint)}.`,
  }),
];
