/**
 * POST /api/endpoints/{id}/backtest: proposed response rules (successWhen, rules) replayed over the
 * endpoint's recorded scheduled runs with the executor's own evaluator (core's createBacktest), a page
 * of runs at a time. Nothing is changed. The proposal is validated as a PATCH would be.
 */
import {
  RESPONSE_RULE_LIMITS,
  applyEndpointInput,
  backtestInput,
  backtestResultRecord,
  compileResponseRules,
  createBacktest,
} from '@kairos/core';
import { endpointConfig, forEachRecordedRun, getEndpoint } from '@kairos/db';
import type { RouteRegistry } from '../http/route.js';
import { validationError } from '../http/validation.js';
import { errorResponses } from './common.js';
import type { ApiDeps } from './deps.js';
import { assertRuleTargets } from './endpoints.js';

export function registerBacktestRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const { db } = deps;
  routes.add(
    {
      method: 'post',
      path: '/api/endpoints/:endpointId/backtest',
      role: 'viewer',
      operationId: 'backtestEndpoint',
      summary: 'Replay recorded runs through proposed response rules',
      description:
        `Replays the endpoint's latest scheduled runs (limit, default ${RESPONSE_RULE_LIMITS.backtestDefaultRuns}, at most ` +
        `${RESPONSE_RULE_LIMITS.backtestMaxRuns}; test runs left out), oldest first, through the proposed successWhen ` +
        "and rules (absent: the endpoint's own; null: none) with the evaluator the executor runs, and answers what " +
        'would have happened: the runs whose status changes, the rules each run matches, the schedule the rules would ' +
        'have applied (a rule interval, a rule pause, or the baseline with the replayed backoff) and the calls a day it ' +
        'implies, against the same figures as recorded. Runs are replayed at their recorded times. Changes nothing. ' +
        'The proposal is validated as a PATCH of the endpoint would be (400 names the field).',
      tags: ['Endpoints'],
      body: backtestInput,
      responses: {
        200: { description: 'What the proposed fields would have done', schema: backtestResultRecord },
        ...errorResponses(400, 404),
      },
    },
    async ({ auth, params, body }) => {
      const endpoint = await getEndpoint(db, auth.accountId, params.endpointId!);
      const { config, issues } = applyEndpointInput(endpointConfig(endpoint, deps.masterKey), {
        ...(body.successWhen !== undefined ? { successWhen: body.successWhen } : {}),
        ...(body.rules !== undefined ? { rules: body.rules } : {}),
      });
      if (issues.length > 0) throw validationError(issues, 'body');
      if (body.rules !== undefined) {
        const { minIntervalMs } = await deps.accountLimits.get(auth.accountId);
        await assertRuleTargets(db, auth.accountId, endpoint.jobId, endpoint.id, config, minIntervalMs);
      }
      const backtest = createBacktest(compileResponseRules(config), config);
      await forEachRecordedRun(
        db,
        auth.accountId,
        endpoint.id,
        body.limit ?? RESPONSE_RULE_LIMITS.backtestDefaultRuns,
        (runs) => {
          for (const run of runs) backtest.add(run);
        },
      );
      return { body: backtest.result() };
    },
  );
}
