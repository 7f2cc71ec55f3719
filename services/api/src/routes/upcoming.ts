/**
 * GET /api/endpoints/{id}/upcoming: the endpoint's next planned times from the scheduling rules as
 * they stand (core/schedule/upcoming.ts). POST: the same for draft scheduling fields, validated as a
 * PATCH would be; nothing is changed.
 */
import {
  applyEndpointInput,
  computeUpcomingRuns,
  upcomingDraftInput,
  upcomingQuery,
  upcomingRunsResult,
  type EndpointConfig,
} from '@kairos/core';
import { endpointConfig, getEndpoint, type EndpointWithJob } from '@kairos/db';
import type { RouteRegistry } from '../http/route.js';
import { validationError } from '../http/validation.js';
import { errorResponses } from './common.js';
import type { ApiDeps } from './deps.js';

const DESCRIPTION =
  'The next planned times from the scheduling rules as they stand now: a pause, one-shot and interval hints ' +
  "(until they expire), backoff for the current failure count, the min/max clamps, and cron in the endpoint's " +
  'time zone. Each run after the first is computed as if the one before had run on time and the failure count ' +
  'stayed as it is. With jitter, the first time is the planned run itself and each later one starts up to jitterMs ' +
  'after the time given. An archived endpoint, or one whose job is paused, has none.';

/** The runs `config` would plan for the stored endpoint's state at `now`. */
function upcoming(endpoint: EndpointWithJob, config: EndpointConfig, count: number, now: Date, exact: boolean) {
  if (endpoint.archivedAt !== null || endpoint.job.status !== 'active') return [];
  const runs = computeUpcomingRuns(
    {
      baselineIntervalMs: config.baselineIntervalMs,
      baselineCron: config.baselineCron,
      timezone: config.timezone,
      minIntervalMs: config.minIntervalMs,
      maxIntervalMs: config.maxIntervalMs,
      jitterMs: config.jitterMs,
      missedRuns: config.missedRuns,
      failureCount: endpoint.failureCount,
      lastScheduledAt: endpoint.lastScheduledAt,
      lastRunAt: endpoint.lastRunAt,
      createdAt: endpoint.createdAt,
      pausedUntil: endpoint.pausedUntil,
      hintIntervalMs: endpoint.hintIntervalMs,
      hintIntervalExpiresAt: endpoint.hintIntervalExpiresAt,
      hintOneShotAt: endpoint.hintOneShotAt,
      hintOneShotExpiresAt: endpoint.hintOneShotExpiresAt,
      hintIntervalOrigin: endpoint.hintIntervalOrigin,
      hintOneShotOrigin: endpoint.hintOneShotOrigin,
    },
    count,
    now,
  );
  // The planned run is stored with its jittered time: as it stands, it is the first upcoming run.
  const planned = endpoint.nextRunAt;
  if (exact && planned !== null && endpoint.nextRunSource !== null && runs.length > 0 && config.jitterMs > 0) {
    runs[0] = { at: planned, source: endpoint.nextRunSource as (typeof runs)[number]['source'] };
  }
  return runs.map((run) => ({ at: run.at.toISOString(), source: run.source }));
}

export function registerUpcomingRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const { db } = deps;
  routes.add(
    {
      method: 'get',
      path: '/api/endpoints/:endpointId/upcoming',
      operationId: 'getUpcomingRuns',
      summary: 'The next planned runs',
      description: DESCRIPTION,
      tags: ['Endpoints'],
      query: upcomingQuery,
      responses: {
        200: { description: 'The next planned runs, soonest first', schema: upcomingRunsResult },
        ...errorResponses(400, 404),
      },
    },
    async ({ auth, params, query }) => {
      const endpoint = await getEndpoint(db, auth.accountId, params.endpointId!);
      const config = endpointConfig(endpoint);
      return {
        body: { runs: upcoming(endpoint, config, query.count, deps.now(), true), jitterMs: config.jitterMs },
      };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/endpoints/:endpointId/upcoming',
      operationId: 'previewUpcomingRuns',
      summary: 'The next planned runs with draft scheduling fields',
      description:
        `${DESCRIPTION} The draft fields (baselineIntervalMs, baselineCron, timezone, minIntervalMs, maxIntervalMs, ` +
        "jitterMs; absent: the endpoint's own) are validated as a PATCH would take them (400 names the field) and " +
        'answered as if saved; nothing is changed.',
      tags: ['Endpoints'],
      query: upcomingQuery,
      body: upcomingDraftInput,
      responses: {
        200: { description: 'The runs the draft would plan, soonest first', schema: upcomingRunsResult },
        ...errorResponses(400, 404),
      },
    },
    async ({ auth, params, query, body }) => {
      const endpoint = await getEndpoint(db, auth.accountId, params.endpointId!);
      const { config, issues } = applyEndpointInput(endpointConfig(endpoint), body);
      if (issues.length > 0) throw validationError(issues, 'body');
      return {
        body: { runs: upcoming(endpoint, config, query.count, deps.now(), false), jitterMs: config.jitterMs },
      };
    },
  );
}
