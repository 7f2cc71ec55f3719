/**
 * Account statistics (the fields are documented in core/schemas/runs.ts). Dates are UTC calendar days, both ends inclusive.
 */
import { RUNS_LIMITS, dashboardQuery, dashboardRecord, type DashboardQuery } from '@kairos/core';
import { getDashboardStats } from '@kairos/db';
import type { RouteRegistry } from '../http/route.js';
import { validationError } from '../http/validation.js';
import { errorResponses } from './common.js';
import type { ApiDeps } from './deps.js';

const DAY_MS = 86_400_000;

const toDate = (day: string): Date => new Date(`${day}T00:00:00.000Z`);
const toDay = (date: Date): string => date.toISOString().slice(0, 10);

/**
 * Defaults: endDate today (UTC), startDate 6 days before endDate (7 days). Refuses endDate before
 * startDate and ranges over 366 days.
 */
export function resolveDashboardRange(query: DashboardQuery, now: Date): { startDate: string; endDate: string } {
  const endDate = query.endDate ?? toDay(now);
  const startDate =
    query.startDate ?? toDay(new Date(toDate(endDate).getTime() - (RUNS_LIMITS.dashboardDefaultDays - 1) * DAY_MS));
  const days = (toDate(endDate).getTime() - toDate(startDate).getTime()) / DAY_MS + 1;
  if (days < 1) {
    throw validationError(
      [{ field: 'endDate', message: `endDate (${endDate}) must not be before startDate (${startDate})` }],
      'query',
    );
  }
  if (days > RUNS_LIMITS.dashboardMaxDays) {
    throw validationError(
      [
        {
          field: 'startDate',
          message: `the range spans ${days} days; at most ${RUNS_LIMITS.dashboardMaxDays} are allowed`,
        },
      ],
      'query',
    );
  }
  return { startDate, endDate };
}

export function registerDashboardRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  routes.add(
    {
      method: 'get',
      path: '/api/dashboard',
      operationId: 'getDashboard',
      summary: 'Account statistics for a date range',
      description:
        'startDate and endDate are UTC days, both inclusive; default the last 7 days ending today. ' +
        `At most ${RUNS_LIMITS.dashboardMaxDays} days; endDate before startDate is a 400. Run figures cover runs ` +
        'started in the range (test runs included, except in lateness); jobs, endpoints and failing endpoints ' +
        'are the current state.',
      tags: ['Dashboard'],
      query: dashboardQuery,
      responses: { 200: { description: 'The statistics', schema: dashboardRecord }, ...errorResponses(400) },
    },
    async ({ auth, query }) => {
      const now = deps.now();
      const range = resolveDashboardRange(query, now);
      const stats = await getDashboardStats(
        deps.db,
        auth.accountId,
        { from: toDate(range.startDate), to: new Date(toDate(range.endDate).getTime() + DAY_MS) },
        now,
      );
      return {
        body: {
          range,
          ...stats,
          failingEndpoints: stats.failingEndpoints.map((endpoint) => ({
            ...endpoint,
            lastRunAt: endpoint.lastRunAt?.toISOString() ?? null,
          })),
        },
      };
    },
  );
}
