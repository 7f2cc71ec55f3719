/**
 * GET and POST /api/endpoints/{id}/upcoming: the endpoint's next planned times from the scheduling
 * rules as they stand (core/schedule/upcoming.ts); the POST asks the same of draft scheduling fields,
 * validated as a PATCH of them would be, without saving anything.
 */
import { z } from 'zod';
import { UPCOMING_DEFAULT_COUNT, UPCOMING_MAX_COUNT } from '../schedule/upcoming.js';
import { updateEndpointInput } from './endpoint.js';
import { calendarHoldRecord } from './records.js';

const count = z.coerce
  .number()
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(UPCOMING_MAX_COUNT, `must be at most ${UPCOMING_MAX_COUNT}`)
  .meta({ description: `How many runs (default ${UPCOMING_DEFAULT_COUNT}, at most ${UPCOMING_MAX_COUNT})` });

export const upcomingQuery = z.object({ count: count.default(UPCOMING_DEFAULT_COUNT) });

const scheduling = updateEndpointInput.shape;

export const upcomingDraftInput = z
  .strictObject({
    baselineIntervalMs: scheduling.baselineIntervalMs,
    baselineCron: scheduling.baselineCron,
    timezone: scheduling.timezone,
    minIntervalMs: scheduling.minIntervalMs,
    maxIntervalMs: scheduling.maxIntervalMs,
    jitterMs: scheduling.jitterMs,
    activeFrom: scheduling.activeFrom,
    activeUntil: scheduling.activeUntil,
    blackouts: scheduling.blackouts,
  })
  .meta({
    id: 'UpcomingDraftInput',
    description: "Draft scheduling fields, as a PATCH would take them (absent: the endpoint's own)",
  });

export const upcomingRunsResult = z
  .object({
    runs: z.array(
      z.object({
        at: z.string().meta({ format: 'date-time', description: 'Planned time (ISO 8601 UTC)' }),
        source: z
          .enum(['baseline-cron', 'baseline-interval', 'ai-interval', 'ai-oneshot', 'rule-interval', 'rule'])
          .meta({ description: 'What plans the run, in the words of the endpoint’s nextRunSource' }),
        calendar: calendarHoldRecord
          .nullable()
          .meta({ description: 'The calendar window that moved this run; null: none did' }),
      }),
    ),
    jitterMs: z.number().int().meta({
      description: 'With jitter, each run after the first starts up to jitterMs after its planned time',
    }),
  })
  .meta({ id: 'UpcomingRuns' });

export type UpcomingDraftInput = z.infer<typeof upcomingDraftInput>;
export type UpcomingRunsResult = z.infer<typeof upcomingRunsResult>;
