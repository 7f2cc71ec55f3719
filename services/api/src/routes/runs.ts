/**
 * Runs (read side), endpoint health and "test now".
 */
import {
  AppError,
  endpointHealthQuery,
  endpointHealthRecord,
  errorBody,
  listRunsQuery,
  runRecord,
  testRunResultRecord,
  type RunRecord,
} from '@kairos/core';
import { getEndpoint, getEndpointHealth, getRun, listRuns, type Run } from '@kairos/db';
import { z } from 'zod';
import type { RouteRegistry } from '../http/route.js';
import { errorResponses, pageHeaderDocs, pageHeaders } from './common.js';
import type { ApiDeps } from './deps.js';

export function toRunRecord(run: Run): RunRecord {
  return {
    id: run.id,
    endpointId: run.endpointId,
    status: run.status,
    statusCode: run.statusCode,
    durationMs: run.durationMs,
    responseBody: run.responseBody ?? null,
    responseFormat: run.responseFormat as RunRecord['responseFormat'],
    responseTruncated: run.responseTruncated,
    responseBodyAltered: run.responseBodyAltered,
    responseSizeBytes: run.responseSizeBytes,
    errorKind: run.errorKind,
    errorMessage: run.errorMessage,
    error: run.errorMessage,
    scheduledAt: run.scheduledAt.toISOString(),
    startedAt: run.startedAt.toISOString(),
    completedAt: run.completedAt.toISOString(),
    lateMs: run.startedAt.getTime() - run.scheduledAt.getTime(),
    waitedForHostMs: run.waitedForHostMs,
    source: run.source,
    replayOf: run.replayOf ?? null,
    attempt: run.attempt,
    attempts: (run.attempts as RunRecord['attempts']) ?? null,
    rulesMatched: run.rulesMatched ?? [],
  };
}

export function registerRunRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const { db } = deps;
  const tags = ['Runs'];

  routes.add(
    {
      method: 'get',
      path: '/api/endpoints/:endpointId/runs',
      operationId: 'listEndpointRuns',
      summary: "List an endpoint's runs, newest first",
      description: 'Ordered by startedAt, newest first (ties by id). Test runs are included (source test).',
      tags,
      query: listRunsQuery,
      responses: {
        200: {
          description: 'A page of runs',
          schema: z.array(runRecord),
          headers: pageHeaderDocs('Runs matching the filter'),
        },
        ...errorResponses(400, 404),
      },
    },
    async ({ auth, params, query, req }) => {
      const { runs, total } = await listRuns(db, auth.accountId, params.endpointId!, query);
      return {
        body: runs.map(toRunRecord),
        headers: pageHeaders(req, { ...query, total }, deps.config.KAIROS_PUBLIC_URL),
      };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/runs/:runId',
      operationId: 'getRun',
      summary: 'Get a run',
      tags,
      responses: { 200: { description: 'The run', schema: runRecord }, ...errorResponses(404) },
    },
    async ({ auth, params }) => ({ body: toRunRecord(await getRun(db, auth.accountId, params.runId!)) }),
  );

  routes.add(
    {
      method: 'get',
      path: '/api/endpoints/:endpointId/health',
      operationId: 'getEndpointHealth',
      summary: "An endpoint's health over the last sinceHours hours",
      description:
        'Counts, success rate and durations cover every run started in the window, test runs included; ' +
        'with no runs they are 0 (see totalRuns). lastRunAt, lastStatus and failureStreak are the endpoint’s ' +
        'scheduled state (test runs excluded), as on the endpoint record.',
      tags,
      query: endpointHealthQuery,
      responses: {
        200: { description: 'The health summary', schema: endpointHealthRecord },
        ...errorResponses(400, 404),
      },
    },
    async ({ auth, params, query }) => {
      const health = await getEndpointHealth(db, auth.accountId, params.endpointId!, query.sinceHours, deps.now());
      return {
        body: {
          ...health,
          lastRunAt: health.lastRunAt?.toISOString() ?? null,
        },
      };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/endpoints/:endpointId/test',
      operationId: 'testEndpoint',
      summary: 'Run the endpoint now, as a test',
      description:
        'Executes the request at once through the executor pool (same signing, egress rules and limits as ' +
        'scheduled runs) and answers when it completes. Records a run with source test; does not change ' +
        'nextRunAt, lastRunAt or failureCount. Works on paused endpoints and in paused jobs. ' +
        'A failed call is a 200 with status failed. 409 CONFLICT on archived endpoints; ' +
        '503 SERVICE_UNAVAILABLE when no executor answers within the endpoint’s timeoutMs plus 10 s.',
      tags,
      responses: {
        200: { description: 'What the test run returned', schema: testRunResultRecord },
        ...errorResponses(404, 409),
        503: { description: 'SERVICE_UNAVAILABLE: no executor answered in time', schema: errorBody },
      },
    },
    async ({ auth, params }) => {
      const endpoint = await getEndpoint(db, auth.accountId, params.endpointId!);
      if (endpoint.archivedAt) {
        throw new AppError('CONFLICT', 'test execution is blocked on archived endpoints', {
          archivedAt: endpoint.archivedAt.toISOString(),
        });
      }
      return { body: await deps.testNow.run(endpoint) };
    },
  );
}
