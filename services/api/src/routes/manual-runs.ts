/**
 * Run now, replay and backfill: runs asked for through the API, executed by the executor pool as
 * real runs (services/api/src/manual-runs.ts, services/executor/src/manual-run.ts).
 */
import {
  AppError,
  METHODS_WITH_BODY,
  backfillInput,
  backfillResult,
  baselineSlotsBetween,
  BACKFILL_MAX_SLOTS,
  queuedRunRecord,
  runNowInput,
  type HttpMethod,
  type QueuedRunRecord,
  type RunNowInput,
} from '@kairos/core';
import { backfilledSlots, getEndpoint, getRun, type EndpointWithJob } from '@kairos/db';
import type { RequestOverrides } from '@kairos/queue';
import type { RouteRegistry } from '../http/route.js';
import { validationError } from '../http/validation.js';
import { errorResponses } from './common.js';
import type { ApiDeps } from './deps.js';

/** A run may be asked for unless the endpoint is archived or its job is not active (as a scheduled run). */
function assertRunnable(endpoint: EndpointWithJob): void {
  if (endpoint.archivedAt) {
    throw new AppError('CONFLICT', 'the endpoint is archived: it does not run', {
      archivedAt: endpoint.archivedAt.toISOString(),
    });
  }
  if (endpoint.job.status !== 'active') {
    throw new AppError('CONFLICT', `the endpoint's job is ${endpoint.job.status}: its endpoints do not run`, {
      jobStatus: endpoint.job.status,
    });
  }
}

/** The overrides as the executor takes them; a body only for methods that send one. */
function overridesOf(endpoint: EndpointWithJob, input: RunNowInput | undefined): RequestOverrides | undefined {
  if (!input || (input.headers === undefined && input.body === undefined)) return undefined;
  if (input.body !== undefined && !METHODS_WITH_BODY.includes(endpoint.method as HttpMethod)) {
    throw validationError([
      {
        field: 'body',
        message: `a request body is only allowed for ${METHODS_WITH_BODY.join(', ')}, not ${endpoint.method}`,
      },
    ]);
  }
  return {
    ...(input.headers === undefined ? {} : { headers: input.headers }),
    ...(input.body === undefined ? {} : { body: input.body }),
  };
}

const RUN_RULES =
  'The run is a real one (source manual): its outcome counts for failureCount, backoff, notifications and the ' +
  'planner as a scheduled run’s does, and the scheduler plans the next run after it. It obeys what a scheduled ' +
  'run obeys: while another run of the endpoint is in progress it does not run (as an overlapping slot), and an ' +
  'account whose monthly runs quota is used up runs nothing; it runs on a paused endpoint (it was asked for). ' +
  '409 CONFLICT when the endpoint is archived or its job is not active.';

export function registerManualRunRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const { db } = deps;
  const tags = ['Runs'];

  const queue = async (
    endpoint: EndpointWithJob,
    overrides: RequestOverrides | undefined,
    replayOf: string | null,
  ): Promise<QueuedRunRecord> => {
    const { runId, scheduledAt } = await deps.manualRuns.runNow(
      { endpointId: endpoint.id, accountId: endpoint.accountId, overrides, replayOf: replayOf ?? undefined },
      deps.now(),
    );
    return { runId, endpointId: endpoint.id, source: 'manual', scheduledAt: scheduledAt.toISOString(), replayOf };
  };

  routes.add(
    {
      method: 'post',
      path: '/api/endpoints/:endpointId/run',
      operationId: 'runEndpointNow',
      summary: 'Run the endpoint now, as a real run',
      description:
        'Queues a run of the endpoint now through the executor pool and answers at once (202) with the id it will ' +
        'be recorded under. Optional headers and body change the request for this run only. ' +
        RUN_RULES,
      tags,
      body: runNowInput,
      bodyOptional: true,
      responses: {
        202: { description: 'The run is queued', schema: queuedRunRecord },
        ...errorResponses(400, 404, 409),
      },
    },
    async ({ auth, params, body }) => {
      const endpoint = await getEndpoint(db, auth.accountId, params.endpointId!);
      assertRunnable(endpoint);
      return { status: 202, body: await queue(endpoint, overridesOf(endpoint, body), null) };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/runs/:runId/replay',
      operationId: 'replayRun',
      summary: 'Run the same request again, as a new run',
      description:
        'Queues a new run of the run’s endpoint, with the same header and body overrides as the run had (a Run now ' +
        'with overrides is repeated as it was), linked to it by replayOf. ' +
        RUN_RULES,
      tags,
      responses: {
        202: { description: 'The run is queued', schema: queuedRunRecord },
        ...errorResponses(404, 409),
      },
    },
    async ({ auth, params }) => {
      const run = await getRun(db, auth.accountId, params.runId!);
      const endpoint = await getEndpoint(db, auth.accountId, run.endpointId);
      assertRunnable(endpoint);
      const overrides = (run.requestOverrides ?? undefined) as RequestOverrides | undefined;
      return { status: 202, body: await queue(endpoint, overrides, run.id) };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/endpoints/:endpointId/backfill',
      operationId: 'backfillEndpoint',
      summary: "Run the endpoint's past baseline slots in a range",
      description:
        `Queues one run per baseline slot from \`from\` to \`to\` (both included, both in the past; at most ` +
        `${BACKFILL_MAX_SLOTS} slots), each recorded with source backfill and the slot's time as scheduledAt. ` +
        'A slot is run once: a slot that has its backfill run, or is queued by an earlier backfill, is not queued ' +
        'again, so repeating a backfill queues nothing. Backfill runs leave the schedule alone (failureCount, ' +
        'lastRunAt and the next run do not change); they wait for a run in progress instead of being dropped, and ' +
        'count against the monthly runs quota. 409 CONFLICT when the endpoint is archived or its job is not active.',
      tags,
      body: backfillInput,
      responses: {
        202: { description: 'The slots are queued', schema: backfillResult },
        ...errorResponses(400, 404, 409),
      },
    },
    async ({ auth, params, body }) => {
      const from = new Date(body.from);
      const to = new Date(body.to);
      const now = deps.now();
      if (to > now) throw validationError([{ field: 'to', message: 'must be in the past' }]);
      if (from >= to) throw validationError([{ field: 'from', message: 'must be before to' }]);
      const endpoint = await getEndpoint(db, auth.accountId, params.endpointId!);
      assertRunnable(endpoint);
      const slots = baselineSlotsBetween(endpoint, from, to, BACKFILL_MAX_SLOTS + 1);
      if (slots.length > BACKFILL_MAX_SLOTS) {
        throw validationError([
          {
            field: 'from',
            message: `the range holds more than ${BACKFILL_MAX_SLOTS} baseline slots; backfill a shorter range`,
          },
        ]);
      }
      const recorded = await backfilledSlots(db, auth.accountId, endpoint.id, from, to);
      const slotsMs = slots.map((slot) => slot.getTime()).filter((slotMs) => !recorded.has(slotMs));
      const queued = await deps.manualRuns.backfill({ endpointId: endpoint.id, accountId: auth.accountId }, slotsMs);
      return { status: 202, body: { slots: slots.length, queued } };
    },
  );
}
