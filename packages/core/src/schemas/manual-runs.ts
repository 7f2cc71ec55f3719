/**
 * Run now, replay and backfill: runs asked for through the API rather than planned by the scheduler.
 * Run now and replay record a real run with source manual (it counts for failures, backoff and the
 * planner, unlike a test run); backfill records one run per past baseline slot with source backfill.
 */
import { z } from 'zod';
import { timestamp } from './common.js';
import { updateEndpointInput } from './endpoint.js';

/** At most this many baseline slots in one backfill. */
export const BACKFILL_MAX_SLOTS = 1000;

const fields = updateEndpointInput.shape;

export const runNowInput = z
  .strictObject({
    headers: fields.headers
      .unwrap()
      .unwrap()
      .optional()
      .meta({
        description:
          "Headers for this run only, merged over the endpoint's (a name given here replaces the endpoint's header of " +
          'that name, case-insensitively); validated as the endpoint’s headers are',
      }),
    body: fields.body.unwrap().unwrap().optional().meta({
      description:
        "Body for this run only, instead of the endpoint's (POST, PUT and PATCH endpoints); validated as the endpoint’s body is",
    }),
  })
  .meta({ id: 'RunNowInput', description: "Changes to the request for this run only; absent: the endpoint's own" });
export type RunNowInput = z.infer<typeof runNowInput>;

export const queuedRunRecord = z
  .object({
    runId: z.string().meta({ description: 'The id the run will be recorded under (GET /api/runs/{id} once it ran)' }),
    endpointId: z.string(),
    source: z.literal('manual').meta({ description: 'manual: asked for through Run now or a replay' }),
    scheduledAt: z.string().meta({ format: 'date-time', description: 'When it was asked for (ISO 8601 UTC)' }),
    replayOf: z.string().nullable().meta({ description: 'The run a replay repeats; null for Run now' }),
  })
  .meta({ id: 'QueuedRun' });
export type QueuedRunRecord = z.infer<typeof queuedRunRecord>;

export const backfillInput = z
  .strictObject({
    from: timestamp.meta({ description: 'Start of the range (inclusive), an ISO 8601 time in the past' }),
    to: timestamp.meta({ description: 'End of the range (inclusive), an ISO 8601 time in the past, after from' }),
  })
  .meta({ id: 'BackfillInput' });
export type BackfillInput = z.infer<typeof backfillInput>;

export const backfillResult = z
  .object({
    slots: z.number().int().meta({ description: "The endpoint's baseline slots in the range" }),
    queued: z.number().int().meta({
      description: 'Slots queued now: the others have their backfill run already, or are queued by an earlier backfill',
    }),
  })
  .meta({ id: 'BackfillResult' });
export type BackfillResult = z.infer<typeof backfillResult>;
