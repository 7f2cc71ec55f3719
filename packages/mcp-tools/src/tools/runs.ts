import { fetchPage, unwrap } from '@kairos/client';
import {
  dashboardQuery,
  dashboardRecord,
  endpointHealthQuery,
  endpointHealthRecord,
  backfillInput,
  backfillResult,
  listRunsQuery,
  queuedRunRecord,
  runNowInput,
  runRecord,
  testRunResultRecord,
  type RunRecord,
} from '@kairos/core';
import { z } from 'zod';
import { CHANGE, IDEMPOTENT_CHANGE, READ_ONLY, asOutput, defineListTool, defineTool, idArg } from '../tool.js';

const describeRun = (run: RunRecord) =>
  `Run ${run.id} (${run.source}) ${run.status}` +
  (run.statusCode === null ? '' : `, HTTP ${run.statusCode}`) +
  `, ${run.durationMs} ms, started ${run.startedAt}` +
  (run.errorMessage ? `: ${run.errorMessage}` : '');

export const runTools = [
  defineListTool({
    name: 'listEndpointRuns',
    title: "List an endpoint's runs",
    description:
      "An endpoint's runs (executions), newest first, test runs included: status, HTTP status, duration, " +
      'response body (truncated to maxResponseSizeKb), error, source (baseline-interval, baseline-cron, ' +
      'ai-interval, ai-oneshot, rule-interval, rule, test, manual, backfill) and lateness, and replayOf. Filter by status (success or failed).',
    input: z.strictObject({ id: idArg('endpoint'), ...listRunsQuery.shape }),
    key: 'runs',
    item: runRecord,
    list: (api, { id, offset, limit, ...filter }) =>
      fetchPage(
        (page) =>
          api.GET('/api/endpoints/{endpointId}/runs', {
            params: { path: { endpointId: id }, query: { ...filter, ...page } },
          }),
        { offset, limit },
      ),
    describeItem: describeRun,
  }),
  defineTool({
    name: 'getRun',
    title: 'Get a run',
    description: 'One run in full, with the response body as recorded.',
    input: z.strictObject({ id: idArg('run') }),
    output: asOutput(runRecord),
    annotations: READ_ONLY,
    run: (api, args) => unwrap(api.GET('/api/runs/{runId}', { params: { path: { runId: args.id } } })),
    summarize: describeRun,
  }),
  defineTool({
    name: 'getEndpointHealth',
    title: "An endpoint's health",
    description:
      'Health over the last sinceHours hours (default 24): run counts, success rate (percent), average and p95 ' +
      'duration, last run and status, and the consecutive failure streak that drives backoff.',
    input: z.strictObject({ id: idArg('endpoint'), ...endpointHealthQuery.shape }),
    output: asOutput(endpointHealthRecord),
    annotations: READ_ONLY,
    run: (api, { id, ...query }) =>
      unwrap(api.GET('/api/endpoints/{endpointId}/health', { params: { path: { endpointId: id }, query } })),
    summarize: (health) =>
      `${health.totalRuns} runs in ${health.sinceHours} h, ${health.successRate}% successful, ` +
      `avg ${health.avgDurationMs} ms, failure streak ${health.failureStreak}.`,
  }),
  defineTool({
    name: 'testEndpoint',
    title: 'Test an endpoint now',
    description:
      "Executes the endpoint's request now (signed, same limits as scheduled runs) and returns the outcome. " +
      'Records a run with source test; does not change nextRunAt, lastRunAt or the failure count. Works on ' +
      'paused endpoints; refused on archived ones. A failed call is a result with status failed, not an error.',
    input: z.strictObject({ id: idArg('endpoint') }),
    output: asOutput(testRunResultRecord),
    // It calls the endpoint's URL: an outside system.
    annotations: { ...CHANGE, openWorldHint: true },
    run: (api, args) =>
      unwrap(api.POST('/api/endpoints/{endpointId}/test', { params: { path: { endpointId: args.id } } })),
    summarize: (result) =>
      `Test run ${result.runId} ${result.status}` +
      (result.statusCode === null ? '' : `, HTTP ${result.statusCode}`) +
      `, ${result.durationMs} ms` +
      (result.errorMessage ? `: ${result.errorMessage}` : '.'),
  }),
  defineTool({
    name: 'runEndpointNow',
    title: 'Run an endpoint now',
    description:
      'Runs the endpoint now as a real run (source manual), unlike testEndpoint: its outcome counts for the failure ' +
      'count, backoff and the planner, and the next run is planned after it. Optional headers (merged over the ' +
      "endpoint's) and body (instead of the endpoint's) change this run's request only. Answers at once with the " +
      'run id (getRun once it ran). Like a scheduled run it does not run while another run of the endpoint is in ' +
      'progress, or when the month’s runs quota is used up.',
    input: z.strictObject({ id: idArg('endpoint'), ...runNowInput.shape }),
    output: asOutput(queuedRunRecord),
    // It calls the endpoint's URL: an outside system.
    annotations: { ...CHANGE, openWorldHint: true },
    run: (api, { id, ...body }) =>
      unwrap(api.POST('/api/endpoints/{endpointId}/run', { params: { path: { endpointId: id } }, body })),
    summarize: (queued) => `Run ${queued.runId} of endpoint ${queued.endpointId} queued (source manual).`,
  }),
  defineTool({
    name: 'replayRun',
    title: 'Replay a run',
    description:
      'Runs the same request as a run again (its headers and body overrides too) as a new run with source manual, ' +
      'linked to it by replayOf; otherwise as runEndpointNow.',
    input: z.strictObject({ id: idArg('run') }),
    output: asOutput(queuedRunRecord),
    annotations: { ...CHANGE, openWorldHint: true },
    run: (api, args) => unwrap(api.POST('/api/runs/{runId}/replay', { params: { path: { runId: args.id } } })),
    summarize: (queued) => `Run ${queued.runId} queued, replaying run ${queued.replayOf}.`,
  }),
  defineTool({
    name: 'backfillEndpoint',
    title: "Run an endpoint's past slots",
    description:
      'Runs one run per baseline slot from `from` to `to` (ISO times in the past, both included, at most 1000 slots), ' +
      "each recorded with source backfill and the slot's time as scheduledAt; the schedule and failure count are left " +
      'alone. A slot runs once: repeating a backfill queues nothing new. Answers the slots in the range and how many ' +
      'were queued.',
    input: z.strictObject({ id: idArg('endpoint'), ...backfillInput.shape }),
    output: asOutput(backfillResult),
    annotations: { ...IDEMPOTENT_CHANGE, openWorldHint: true },
    run: (api, { id, ...body }) =>
      unwrap(api.POST('/api/endpoints/{endpointId}/backfill', { params: { path: { endpointId: id } }, body })),
    summarize: (result) => `${result.queued} of ${result.slots} slots queued.`,
  }),
  defineTool({
    name: 'getDashboard',
    title: 'Account statistics',
    description:
      'Statistics for a range of UTC days (startDate, endDate as YYYY-MM-DD; default the last 7 days): job and ' +
      'endpoint totals, runs per day and per source, success rate, lateness percentiles, failing endpoints, ' +
      'analysis sessions and AI tokens.',
    input: z.strictObject(dashboardQuery.shape),
    output: asOutput(dashboardRecord),
    annotations: READ_ONLY,
    run: (api, query) => unwrap(api.GET('/api/dashboard', { params: { query } })),
    summarize: (stats) =>
      `${stats.range.startDate} to ${stats.range.endDate}: ${stats.totals.jobs} jobs, ${stats.totals.endpoints} ` +
      `endpoints, ${stats.totals.runs} runs (${stats.successRate}% successful), ` +
      `${stats.failingEndpoints.length} failing endpoints.`,
  }),
];
