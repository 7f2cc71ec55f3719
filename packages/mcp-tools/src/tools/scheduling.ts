import { unwrap } from '@kairos/client';
import {
  SCHEDULING_LIMITS,
  clearHintsResult,
  intervalHintInput,
  intervalHintResult,
  oneShotHintInput,
  oneShotHintResult,
  resetFailuresResult,
} from '@kairos/core';
import { z } from 'zod';
import { IDEMPOTENT_CHANGE, asOutput, defineTool, idArg } from '../tool.js';
import { describeSchedule } from './endpoints.js';

const endpointId = idArg('endpoint');
const MS_PER_MINUTE = 60_000;

/**
 * scheduleOneShot takes a delay (nextRunInMs) where the API takes a time (nextRunAt) and a TTL.
 * nextRunAt = the MCP server's now + nextRunInMs; without ttlMinutes the hint lives until 30
 * minutes after that time, so the run happens even if the minIntervalMs floor or a busy queue
 * delays it a little (a one-shot hint is used up by its run; the slack does not keep it longer).
 */
export const ONE_SHOT_TTL_SLACK_MINUTES = 30;
export const ONE_SHOT_MAX_DELAY_MS = (SCHEDULING_LIMITS.hintTtlMaxMinutes - ONE_SHOT_TTL_SLACK_MINUTES) * MS_PER_MINUTE;

export const oneShotTtlMinutes = (nextRunInMs: number): number =>
  Math.ceil(nextRunInMs / MS_PER_MINUTE) + ONE_SHOT_TTL_SLACK_MINUTES;

export const schedulingTools = [
  defineTool({
    name: 'applyIntervalHint',
    title: 'Set a temporary interval (interval hint)',
    description:
      'Runs the endpoint every intervalMs (from the last run) for ttlMinutes (typically 15 to 60), overriding ' +
      'the baseline and its backoff; afterwards the baseline applies again on its own. The interval is clamped ' +
      'to minIntervalMs/maxIntervalMs when scheduling (clampedIntervalMs says what applies). Replaces an ' +
      'earlier interval hint. Interval-baseline endpoints only: cron endpoints refuse interval hints.',
    input: z.strictObject({ id: endpointId, ...intervalHintInput.shape }),
    output: asOutput(intervalHintResult),
    annotations: IDEMPOTENT_CHANGE,
    run: (api, { id, ...body }) =>
      unwrap(api.POST('/api/endpoints/{endpointId}/hints/interval', { params: { path: { endpointId: id } }, body })),
    summarize: (result) =>
      `Interval hint set: every ${result.clampedIntervalMs} ms (requested ${result.intervalMs}) until ${result.expiresAt}. ` +
      `${describeSchedule(result.endpoint)}.`,
  }),
  defineTool({
    name: 'scheduleOneShot',
    title: 'Run once after a delay (one-shot hint)',
    description:
      'Runs the endpoint once, nextRunInMs milliseconds from now (0: as soon as possible); until then it ' +
      'replaces the scheduled runs (no baseline or interval-hint run happens before it), and afterwards the ' +
      'schedule resumes from that run. Works on cron and interval endpoints; the minIntervalMs floor still applies. ' +
      `The hint expires ttlMinutes from now; when omitted, ${ONE_SHOT_TTL_SLACK_MINUTES} minutes after the run ` +
      'time. Replaces an earlier one-shot hint.',
    input: z.strictObject({
      id: endpointId,
      nextRunInMs: z
        .number()
        .int('must be a whole number of milliseconds')
        .min(0, 'must not be negative')
        .max(ONE_SHOT_MAX_DELAY_MS, `must be at most ${ONE_SHOT_MAX_DELAY_MS} ms`)
        .meta({ description: 'Delay from now until the run, in milliseconds', example: 300_000 }),
      ttlMinutes: oneShotHintInput.shape.ttlMinutes.optional().meta({
        description: `Minutes until the hint expires; must outlast the run (default: the delay plus ${ONE_SHOT_TTL_SLACK_MINUTES} minutes)`,
      }),
      reason: oneShotHintInput.shape.reason,
    }),
    output: asOutput(oneShotHintResult),
    annotations: IDEMPOTENT_CHANGE,
    run: (api, { id, nextRunInMs, ttlMinutes, reason }) =>
      unwrap(
        api.POST('/api/endpoints/{endpointId}/hints/oneshot', {
          params: { path: { endpointId: id } },
          body: {
            nextRunAt: new Date(Date.now() + nextRunInMs).toISOString(),
            ttlMinutes: ttlMinutes ?? oneShotTtlMinutes(nextRunInMs),
            reason,
          },
        }),
      ),
    summarize: (result) =>
      `One-shot run scheduled at ${result.nextRunAt} (hint expires ${result.expiresAt}). ${describeSchedule(result.endpoint)}.`,
  }),
  defineTool({
    name: 'clearHints',
    title: 'Clear AI hints',
    description:
      'Removes the interval and one-shot hints: back to the baseline schedule (with backoff if failures ' +
      'exist). A pause is not a hint and stays. Idempotent.',
    input: z.strictObject({ id: endpointId }),
    output: asOutput(clearHintsResult),
    annotations: IDEMPOTENT_CHANGE,
    run: (api, args) =>
      unwrap(api.DELETE('/api/endpoints/{endpointId}/hints', { params: { path: { endpointId: args.id } } })),
    summarize: (result) => `Hints cleared. ${describeSchedule(result.endpoint)}.`,
  }),
  defineTool({
    name: 'resetFailures',
    title: 'Reset the failure count',
    description: 'Sets the consecutive failure count to 0, removing backoff (the baseline applies unmultiplied).',
    input: z.strictObject({ id: endpointId }),
    output: asOutput(resetFailuresResult),
    annotations: IDEMPOTENT_CHANGE,
    run: (api, args) =>
      unwrap(api.POST('/api/endpoints/{endpointId}/reset-failures', { params: { path: { endpointId: args.id } } })),
    summarize: (result) => `Failure count reset to ${result.failureCount}. ${describeSchedule(result.endpoint)}.`,
  }),
];
