/**
 * Auto-pause (opt-in): an endpoint (or, by default, every endpoint of an account) is paused
 * after this many consecutive failures. Kept apart from notifications.ts so the endpoint schema can
 * use it without an import cycle.
 */
import { z } from 'zod';

/** notifyFailureThreshold and autoPauseAfterFailures range: 1000 failures of a 1 s interval is ~17 min. */
export const FAILURE_SETTING_RANGE = { min: 1, max: 1000 } as const;

export const failureCountSetting = (what: string) =>
  z
    .number()
    .int('must be a whole number of failures')
    .min(FAILURE_SETTING_RANGE.min, `must be at least ${FAILURE_SETTING_RANGE.min}`)
    .max(FAILURE_SETTING_RANGE.max, `must be at most ${FAILURE_SETTING_RANGE.max}`)
    .meta({ description: what });

/** Endpoint field and account default: pause after this many consecutive failures (null: off). */
export const autoPauseAfterFailures = failureCountSetting(
  'Pause the endpoint after this many consecutive failures (1 to 1000; reason says so, endpoint.auto_paused is sent; ' +
    'resume clears it). null: the account default (autoPauseAfterFailures in the settings); both null (default): never',
).nullable();
