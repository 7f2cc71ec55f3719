import { fetchPage, unwrap } from '@kairos/client';
import {
  dashboardQuery,
  dashboardRecord,
  endpointHealthQuery,
  endpointHealthRecord,
  listRunsQuery,
  runRecord,
  testRunResultRecord,
  type RunRecord,
} from '@kairos/core';
import { z } from 'zod';
import { CHANGE, READ_ONLY, asOutput, defineListTool, defineTool, idArg } from '../tool.js';

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
      'ai-interval, ai-oneshot, test) and lateness. Filter by status (success or failed).',
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
