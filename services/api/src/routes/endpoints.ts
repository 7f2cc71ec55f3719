import {
  AppError,
  LIMITS,
  applyEndpointInput,
  checkResponseRules,
  createEndpointInput,
  keepMaskedHeaders,
  endpointRecord,
  pagingQuery,
  resourceKey,
  updateEndpointInput,
  type EndpointConfig,
} from '@kairos/core';
import {
  archiveEndpoint,
  createEndpoint,
  endpointConfig,
  getEndpoint,
  getJob,
  listEndpoints,
  listJobRules,
  updateEndpoint,
  type Database,
} from '@kairos/db';
import { z } from 'zod';
import { audit, changeDetails } from '../audit.js';
import type { RouteRegistry } from '../http/route.js';
import { assertEndpointQuota, assertScheduleQuota } from '../quotas.js';
import { validationError } from '../http/validation.js';
import { toEndpointRecord } from '../presenters.js';
import { errorResponses, pageHeaderDocs, pageHeaders } from './common.js';
import type { ApiDeps } from './deps.js';

const listEndpointsQuery = pagingQuery(LIMITS.listDefaultLimit).extend({
  includeArchived: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true')
    .meta({ description: 'Include archived endpoints (default false)' }),
  key: resourceKey.optional().meta({ description: 'Only the endpoint with this key' }),
});

const endpointActionResult = z
  .object({ success: z.literal(true), endpoint: endpointRecord })
  .meta({ id: 'EndpointActionResult' });

/**
 * The response-rule checks that read the job and the account: runEndpoint names another unarchived
 * endpoint of the job and starts no chain back to this one; interval rules are not below the
 * account's minimum interval. Run when rules are sent (a stored rule whose target was archived
 * since does not block other edits: at run time it runs nothing).
 */
export async function assertRuleTargets(
  db: Database,
  accountId: string,
  jobId: string,
  endpointId: string | null,
  config: EndpointConfig,
  accountMinIntervalMs: number,
): Promise<void> {
  if (config.rules === null) return;
  const siblings = (await listJobRules(db, accountId, jobId)).filter((sibling) => sibling.id !== endpointId);
  const issues = checkResponseRules(config, { endpointId, accountMinIntervalMs, siblings });
  if (issues.length > 0) throw validationError(issues, 'body');
}

export function registerEndpointRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const { db } = deps;
  const tags = ['Endpoints'];

  routes.add(
    {
      method: 'post',
      path: '/api/jobs/:jobId/endpoints',
      operationId: 'createEndpoint',
      summary: 'Add an endpoint to a job',
      description:
        'The endpoint starts executing immediately on its baseline schedule. 403 QUOTA_EXCEEDED names the quota: ' +
        "maxEndpoints, or minIntervalMs when baselineIntervalMs, minIntervalMs or the cron's spacing is below the " +
        "account's minimum interval. successWhen and rules (response rules, opt-in) are checked whole: 400 " +
        'VALIDATION_ERROR names the field (rules[2].when.all[0].path) for a bad path, operator or pattern, an ' +
        "interval rule on a cron endpoint or below the account's minimum interval, or a runEndpoint outside the job.",
      tags,
      body: createEndpointInput,
      responses: { 201: { description: 'The new endpoint', schema: endpointRecord }, ...errorResponses(400, 404, 409) },
    },
    async ({ auth, params, body }) => {
      const { config, issues } = applyEndpointInput(null, body);
      if (issues.length > 0) throw validationError(issues, 'body');
      await getJob(db, auth.accountId, params.jobId!); // another account's job: 404 before any quota answer
      const limits = await deps.accountLimits.get(auth.accountId);
      await assertRuleTargets(db, auth.accountId, params.jobId!, null, config, limits.minIntervalMs);
      assertScheduleQuota(limits, config, null, deps.now());
      await assertEndpointQuota(db, limits, auth.accountId);
      const endpoint = await createEndpoint(db, auth.accountId, params.jobId!, config, deps.masterKey);
      await deps.notifier.notify([endpoint.id], 'endpoint-created');
      await audit(deps, auth, 'endpoint.created', { type: 'endpoint', id: endpoint.id }, { jobId: endpoint.jobId });
      return { status: 201, body: toEndpointRecord(endpoint, deps.now()) };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/jobs/:jobId/endpoints',
      operationId: 'listEndpoints',
      summary: "List a job's endpoints, oldest first",
      tags,
      query: listEndpointsQuery,
      responses: {
        200: {
          description: 'A page of endpoints',
          schema: z.array(endpointRecord),
          headers: pageHeaderDocs('Endpoints matching the filter'),
        },
        ...errorResponses(400, 404),
      },
    },
    async ({ auth, params, query, req }) => {
      const { endpoints, total } = await listEndpoints(db, auth.accountId, params.jobId!, query);
      const now = deps.now();
      return {
        body: endpoints.map((endpoint) => toEndpointRecord(endpoint, now)),
        headers: pageHeaders(req, { ...query, total }, deps.config.KAIROS_PUBLIC_URL),
      };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/jobs/:jobId/endpoints/:endpointId',
      operationId: 'getJobEndpoint',
      summary: 'Get an endpoint of a job',
      tags,
      responses: { 200: { description: 'The endpoint', schema: endpointRecord }, ...errorResponses(404) },
    },
    async ({ auth, params }) => ({
      body: toEndpointRecord(await getEndpoint(db, auth.accountId, params.endpointId!, params.jobId!), deps.now()),
    }),
  );

  routes.add(
    {
      method: 'get',
      path: '/api/endpoints/:endpointId',
      operationId: 'getEndpoint',
      summary: 'Get an endpoint by id',
      tags,
      responses: { 200: { description: 'The endpoint', schema: endpointRecord }, ...errorResponses(404) },
    },
    async ({ auth, params }) => ({
      body: toEndpointRecord(await getEndpoint(db, auth.accountId, params.endpointId!), deps.now()),
    }),
  );

  routes.add(
    {
      method: 'patch',
      path: '/api/jobs/:jobId/endpoints/:endpointId',
      operationId: 'updateEndpoint',
      summary: 'Update an endpoint',
      description:
        'Any subset of the input fields; null clears an optional field. Setting one baseline replaces the other. ' +
        'The whole resulting configuration is validated. A masked header value (********) keeps the stored value. ' +
        'A changed schedule below the account minimum interval is refused: 403 QUOTA_EXCEEDED (minIntervalMs). ' +
        'New rules replace the old ones as a whole and end an interval a rule had set (the next run decides again); ' +
        'a rule chain (runEndpoint) that returns to this endpoint is refused (400, the rule named).',
      tags,
      body: updateEndpointInput,
      responses: {
        200: { description: 'The updated endpoint', schema: endpointRecord },
        ...errorResponses(400, 404, 409),
      },
    },
    async ({ auth, params, body }) => {
      const current = await getEndpoint(db, auth.accountId, params.endpointId!, params.jobId!);
      if (current.archivedAt) throw new AppError('CONFLICT', 'archived endpoints are read-only');
      const stored = endpointConfig(current, deps.masterKey);
      const { config, issues } = applyEndpointInput(stored, body);
      if (issues.length > 0) throw validationError(issues, 'body');
      keepMaskedHeaders(config, stored);
      const limits = await deps.accountLimits.get(auth.accountId);
      if (body.rules !== undefined) {
        await assertRuleTargets(db, auth.accountId, current.jobId, current.id, config, limits.minIntervalMs);
      }
      assertScheduleQuota(limits, config, stored, deps.now());
      const updated = await updateEndpoint(db, auth.accountId, current.id, config, {
        clearIntervalHint: config.baselineCron !== null,
        clearRuleIntervalHint: body.rules !== undefined,
        masterKey: deps.masterKey,
      });
      await deps.notifier.notify([updated.id], 'endpoint-updated');
      const record = toEndpointRecord(updated, deps.now());
      await audit(
        deps,
        auth,
        'endpoint.updated',
        { type: 'endpoint', id: updated.id },
        changeDetails(Object.keys(body), toEndpointRecord(current, deps.now()), record),
      );
      return { body: record };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/jobs/:jobId/endpoints/:endpointId/archive',
      operationId: 'archiveEndpoint',
      summary: 'Archive an endpoint',
      description: 'The endpoint stops for good; test execution is refused afterwards. Idempotent.',
      tags,
      responses: {
        200: { description: 'The archived endpoint', schema: endpointActionResult },
        ...errorResponses(404),
      },
    },
    async ({ auth, params }) => {
      await getJob(db, auth.accountId, params.jobId!);
      const { endpoint, changed } = await archiveEndpoint(
        db,
        auth.accountId,
        params.endpointId!,
        params.jobId!,
        deps.now(),
      );
      if (changed) {
        await deps.notifier.notify([endpoint.id], 'endpoint-archived');
        await audit(deps, auth, 'endpoint.archived', { type: 'endpoint', id: endpoint.id });
      }
      return { body: { success: true, endpoint: toEndpointRecord(endpoint, deps.now()) } };
    },
  );
}
