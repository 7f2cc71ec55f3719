/**
 * Scheduling control: pause, interval and one-shot hints, clearing
 * hints, resetting failures. Each route checks the change against the locked endpoint (pure
 * checks in core/schemas/scheduling.ts), writes it, and tells the scheduler, which recomputes the
 * planned run at once. Changes made here have origin "user" (the planner's are "planner").
 */
import {
  checkIntervalHint,
  checkOneShotHint,
  checkPause,
  clearHintsResult,
  intervalHintInput,
  intervalHintResult,
  oneShotHintInput,
  oneShotHintResult,
  pauseEndpointInput,
  pauseResult,
  resetFailuresResult,
  type HintCheck,
} from '@kairos/core';
import { changeEndpointSchedule } from '@kairos/db';
import { audit } from '../audit.js';
import type { RouteRegistry } from '../http/route.js';
import { assertIntervalHintQuota } from '../quotas.js';
import { validationError } from '../http/validation.js';
import { toEndpointRecord } from '../presenters.js';
import { errorResponses } from './common.js';
import type { ApiDeps } from './deps.js';

const target = (endpointId: string) => ({ type: 'endpoint', id: endpointId });

function valueOrThrow<T>(check: HintCheck<T>): T {
  if (!check.ok) throw validationError(check.issues, 'body');
  return check.value;
}

export function registerSchedulingRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const { db } = deps;
  const tags = ['Scheduling control'];
  const refusals = errorResponses(400, 404, 409);

  routes.add(
    {
      method: 'post',
      path: '/api/endpoints/:endpointId/pause',
      operationId: 'pauseEndpoint',
      summary: 'Pause an endpoint until a time, or resume it',
      description:
        'A pause overrides the baseline and all hints (they stay stored and apply again afterwards). ' +
        'pausedUntil must be in the future; null resumes immediately and clears the reason. ' +
        'A job-level pause (POST /api/jobs/{jobId}/pause) is separate and unaffected. 409 on archived endpoints.',
      tags,
      body: pauseEndpointInput,
      responses: { 200: { description: 'The endpoint after the change', schema: pauseResult }, ...refusals },
    },
    async ({ auth, params, body }) => {
      const now = deps.now();
      const { pausedUntil } = valueOrThrow(
        checkPause(body.pausedUntil === null ? null : new Date(body.pausedUntil), now),
      );
      const endpoint = await changeEndpointSchedule(db, auth.accountId, params.endpointId!, now, () => ({
        kind: 'pause',
        pausedUntil,
        reason: body.reason ?? null,
        origin: 'user',
      }));
      await deps.notifier.notify([endpoint.id], pausedUntil ? 'endpoint-paused' : 'endpoint-resumed');
      await audit(deps, auth, pausedUntil ? 'endpoint.paused' : 'endpoint.resumed', target(endpoint.id), {
        pausedUntil: pausedUntil?.toISOString() ?? null,
        reason: body.reason ?? null,
      });
      return {
        body: {
          success: true,
          endpoint: toEndpointRecord(endpoint, now),
          pausedUntil: pausedUntil?.toISOString() ?? null,
        },
      };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/endpoints/:endpointId/hints/interval',
      operationId: 'applyIntervalHint',
      summary: 'Set a temporary interval (interval hint)',
      description:
        'Runs the endpoint every intervalMs (measured from the last run) until the hint expires after ' +
        'ttlMinutes, overriding the baseline and its backoff; then the baseline applies again. ' +
        'The interval is accepted outside minIntervalMs/maxIntervalMs and clamped when scheduling: ' +
        'clampedIntervalMs is what applies. Replaces an earlier interval hint. Refused (400, field intervalMs) ' +
        'on cron-scheduled endpoints: adaptive interval behaviour needs baselineIntervalMs. 409 on archived endpoints. ' +
        "403 QUOTA_EXCEEDED (minIntervalMs) below the account's minimum interval.",
      tags,
      body: intervalHintInput,
      responses: { 200: { description: 'The hint as stored', schema: intervalHintResult }, ...refusals },
    },
    async ({ auth, params, body }) => {
      const now = deps.now();
      let hint: { intervalMs: number; clampedIntervalMs: number; expiresAt: Date } | undefined;
      const limits = await deps.accountLimits.get(auth.accountId);
      const endpoint = await changeEndpointSchedule(db, auth.accountId, params.endpointId!, now, (current) => {
        hint = valueOrThrow(checkIntervalHint(current, body, now));
        assertIntervalHintQuota(limits, hint.intervalMs);
        return { kind: 'interval-hint', ...hint, reason: body.reason, origin: 'user' };
      });
      await deps.notifier.notify([endpoint.id], 'interval-hint-set');
      await audit(deps, auth, 'endpoint.interval_hint_set', target(endpoint.id), {
        intervalMs: hint!.intervalMs,
        ttlMinutes: body.ttlMinutes,
        reason: body.reason,
      });
      return {
        body: {
          success: true,
          endpoint: toEndpointRecord(endpoint, now),
          intervalMs: hint!.intervalMs,
          clampedIntervalMs: hint!.clampedIntervalMs,
          expiresAt: hint!.expiresAt.toISOString(),
        },
      };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/endpoints/:endpointId/hints/oneshot',
      operationId: 'scheduleOneShot',
      summary: 'Run once at a time (one-shot hint)',
      description:
        'Runs the endpoint once at nextRunAt, and until then it replaces the scheduled runs: an active ' +
        'one-shot hint comes before the interval hint and the baseline (only a pause comes first), so no ' +
        'scheduled run happens before it. After it has run, the schedule resumes from that run (an interval ' +
        'baseline: nextRunAt + baselineIntervalMs). The hint expires ' +
        'ttlMinutes from now; nextRunAt must be before that expiry (else it would never run: 400). ' +
        'A nextRunAt in the past means as soon as possible (stored as now). Works on cron and interval ' +
        'endpoints; the minIntervalMs floor still applies (400, field ttlMinutes, when it would push the run ' +
        'past the expiry). Replaces an earlier one-shot hint. 409 on archived endpoints.',
      tags,
      body: oneShotHintInput,
      responses: { 200: { description: 'The hint as stored', schema: oneShotHintResult }, ...refusals },
    },
    async ({ auth, params, body }) => {
      const now = deps.now();
      let hint: { nextRunAt: Date; expiresAt: Date } | undefined;
      const endpoint = await changeEndpointSchedule(db, auth.accountId, params.endpointId!, now, (current) => {
        hint = valueOrThrow(
          checkOneShotHint(current, { nextRunAt: new Date(body.nextRunAt), ttlMinutes: body.ttlMinutes }, now),
        );
        return { kind: 'one-shot-hint', ...hint, reason: body.reason, origin: 'user' };
      });
      await deps.notifier.notify([endpoint.id], 'one-shot-hint-set');
      await audit(deps, auth, 'endpoint.one_shot_hint_set', target(endpoint.id), {
        nextRunAt: hint!.nextRunAt.toISOString(),
        reason: body.reason,
      });
      return {
        body: {
          success: true,
          endpoint: toEndpointRecord(endpoint, now),
          nextRunAt: hint!.nextRunAt.toISOString(),
          expiresAt: hint!.expiresAt.toISOString(),
        },
      };
    },
  );

  routes.add(
    {
      method: 'delete',
      path: '/api/endpoints/:endpointId/hints',
      operationId: 'clearHints',
      summary: 'Clear the interval and one-shot hints',
      description:
        'Back to the baseline schedule (with backoff if failures exist). A pause is not a hint and stays. ' +
        'Idempotent. 409 on archived endpoints.',
      tags,
      responses: {
        200: { description: 'The endpoint without hints', schema: clearHintsResult },
        ...errorResponses(404, 409),
      },
    },
    async ({ auth, params }) => {
      const now = deps.now();
      const endpoint = await changeEndpointSchedule(db, auth.accountId, params.endpointId!, now, () => ({
        kind: 'clear-hints',
      }));
      await deps.notifier.notify([endpoint.id], 'hints-cleared');
      await audit(deps, auth, 'endpoint.hints_cleared', target(endpoint.id));
      return { body: { success: true, endpoint: toEndpointRecord(endpoint, now) } };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/endpoints/:endpointId/reset-failures',
      operationId: 'resetFailures',
      summary: 'Reset the consecutive failure count to 0',
      description:
        'Removes backoff: the baseline interval applies unmultiplied. Idempotent. 409 on archived endpoints.',
      tags,
      responses: {
        200: { description: 'The endpoint with failureCount 0', schema: resetFailuresResult },
        ...errorResponses(404, 409),
      },
    },
    async ({ auth, params }) => {
      const now = deps.now();
      const endpoint = await changeEndpointSchedule(db, auth.accountId, params.endpointId!, now, () => ({
        kind: 'reset-failures',
      }));
      await deps.notifier.notify([endpoint.id], 'failures-reset');
      await audit(deps, auth, 'endpoint.failures_reset', target(endpoint.id));
      return { body: { success: true, endpoint: toEndpointRecord(endpoint, now), failureCount: 0 } };
    },
  );
}
