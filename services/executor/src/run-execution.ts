/**
 * One execution, from a planned run (delivered by its due job) to a recorded Run:
 *   admit (admission.ts: load the endpoint, skip, or check the quota and take the lock) → call it →
 *   record the run (+ state), free the lock, count it and announce it on run-completed (all batched
 *   by the RunRecorder).
 * With the endpoint's opt-in `retry`, "call it" is a series of attempts (retry.ts), still one run.
 * A delivery whose call already completed before (its recording failed; admission found the
 * stashed outcome) records that outcome instead of calling again.
 * Skips (no run recorded): the endpoint is gone or archived, its job is not active, it is paused,
 * the due job is stale (a later change superseded it: its scheduleVersion no longer matches), or its
 * slot already has its run (recorded: scheduledAt at or before the endpoint's lastScheduledAt). When a
 * skip is not caused by staleness, queue-workers.ts asks the scheduler to recompute so the endpoint's next
 * execution reflects the state that caused the skip.
 */
import {
  MAX_DISPATCH_WAIT_MS,
  maskHeaderValues,
  maskSecrets,
  maskSecretsDeep,
  openHeaders,
  referencedSecretNames,
  sensitiveHeaderValues,
  substituteSecrets,
  substituteSecretsDeep,
  type RunAttemptRecord,
} from '@kairos/core';
import { type Database } from '@kairos/db';
import { loadExecutionTarget, type ExecutionTarget, type PlannedRun, type RunOutcome } from '@kairos/db/system';
import { currentTraceparent, type DueJobRef, type TestRunPayload, type TestRunResult } from '@kairos/queue';
import { metrics } from '@kairos/runtime';
import { traceOutboundCall } from './call-span.js';
import type { HttpErrorKind, HttpExecutor, HttpMethod, HttpOutcome } from './http/index.js';
import type { Admissions, SkipReason } from './admission.js';
import type { CallSlots } from './call-slots.js';
import type { HostBudget, HostBudgets, HostPlace } from './host-budget.js';
import { executionBudgetMs, parseRetryAfterMs } from './retry-policy.js';
import { judgeCall, withRuleOutcome, type ResponseRulesCache } from './response-rules.js';
import type { Retries } from './retry.js';
import type { RunRecorder } from './run-recorder.js';
import type { SigningKeys } from './signing-keys.js';
import type { SecretResolver } from './secrets.js';

export type { SkipReason } from './admission.js';

export type PlannedRunResult =
  | { kind: 'recorded'; run: RunOutcome; firstDelivery: boolean }
  | { kind: 'skipped'; reason: SkipReason }
  /** Held by its host's budget longer than the executor waits: deliver the due job again at `atMs`. */
  | { kind: 'delayed'; atMs: number; heldSinceMs: number };

/** The running lock and the quota counter are held by `admissions` and `recorder`, not passed here. */
export interface ExecuteDeps {
  db: Database;
  http: HttpExecutor;
  /** Decides in batches whether planned runs may start: skip rules, quota check, lock (admission.ts). */
  admissions: Admissions;
  /**
   * Records finished executions in batches, frees their locks on every path, counts them against
   * the quota and announces them (run-recorder.ts).
   */
  recorder: RunRecorder;
  /** The attempts of a run whose endpoint has `retry` set; one call otherwise (retry.ts). */
  retries: Retries;
  /** The accounts' signing keys, decrypted once per stored value (signing-keys.ts). */
  signingKeys: SigningKeys;
  /** Shared secrets referenced by endpoints, resolved at call time (secrets.ts). */
  secrets?: SecretResolver;
  /** Endpoints' response rules, compiled once per text (response-rules.ts). */
  responseRules: ResponseRulesCache;
  /**
   * Bounds the calls in flight and the response memory reserved from a call until its run is
   * recorded (call-slots.ts).
   */
  callSlots: CallSlots;
  /** The accounts' host budgets (host-budget.ts); absent: none is enforced. */
  hostBudgets?: HostBudgets;
  now: () => Date;
}

/**
 * Executes the planned run a due job names (admission reads it from the endpoint's row); `admitted`
 * hears its run id once known (a shutdown that hands the job back logs it).
 */
export async function executePlannedRun(
  deps: ExecuteDeps,
  due: DueJobRef,
  attempt: number,
  admitted?: (planned: PlannedRun) => void,
  hostHeldSinceMs?: number,
): Promise<PlannedRunResult> {
  const phase = phaseClock();
  const admission = await deps.admissions.admit(due);
  phase('admission');
  if (admission.kind === 'skipped') return admission;
  const { target, planned } = admission;
  admitted?.(planned);
  // Waiting for the run's time takes no call slot (call-slots.ts); the call does, and its response's
  // memory stays reserved until the run is recorded.
  const wait = admission.kind === 'replay' ? null : untilDue(startTime(target, planned.scheduledAt));
  if (wait) await wait;
  // Without host limits on the account: no call, no await (host-budget.ts).
  const budget = admission.kind === 'replay' ? null : (deps.hostBudgets?.of(target) ?? null);
  let place: HostPlace | null = null;
  if (budget) {
    place = await takeHostPlace(deps, budget, target, planned, hostHeldSinceMs);
    if (place.kind === 'later') return { kind: 'delayed', atMs: place.atMs, heldSinceMs: place.heldSinceMs };
  }
  const taken = place?.kind === 'taken' ? place : null;
  return deps.callSlots(target.maxResponseSizeKb, async (callEnded) => {
    let run: RunOutcome;
    try {
      run =
        admission.kind === 'replay'
          ? admission.run
          : await callPlannedRun(
              deps,
              target,
              planned,
              attempt,
              phase,
              budget && { budget, waitedMs: taken!.waitedMs },
            );
    } finally {
      if (taken) await releaseHostPlace(deps, taken);
    }
    // The record waits for its batch without the slot, so that calls go on meanwhile (call-slots.ts).
    callEnded();
    // The recorder frees the lock once the run is committed (and on failure).
    const recorded = await deps.recorder.record({
      run,
      scheduleVersion: planned.scheduleVersion,
      aiSchedulingEnabled: target.aiSchedulingEnabled,
      isReplay: admission.kind === 'replay',
      traceparent: currentTraceparent(),
      target,
    });
    phase('record');
    return { kind: 'recorded' as const, ...recorded };
  });
}

/**
 * Takes the run's place in its host's budget (host-budget.ts); a Redis failure frees the run's lock
 * and fails the delivery, like a failed admission.
 */
async function takeHostPlace(
  deps: ExecuteDeps,
  budget: HostBudget,
  target: ExecutionTarget,
  planned: PlannedRun,
  heldSinceMs: number | undefined,
): Promise<HostPlace> {
  try {
    const place = await deps.hostBudgets!.take(budget, planned.runId, executionBudgetMs(target), heldSinceMs);
    // Given back to the queue: the lock is taken again when it is delivered again.
    if (place.kind === 'later') await deps.recorder.abandon(target.id, planned.runId, planned.scheduleVersion);
    return place;
  } catch (error) {
    await deps.recorder.abandon(target.id, planned.runId, planned.scheduleVersion);
    throw error;
  }
}

/** Frees a call's place in its host's budget; a place not freed ends with its lease. */
async function releaseHostPlace(deps: ExecuteDeps, place: Extract<HostPlace, { kind: 'taken' }>): Promise<void> {
  await place.release().catch(() => undefined);
}

/** A run's host budget as its calls see it: each attempt after the first takes its own start time. */
interface HostCall {
  budget: HostBudget;
  waitedMs: number | null;
}

/** Calls the endpoint for an admitted run (every attempt); a call that throws frees the run's lock. */
async function callPlannedRun(
  deps: ExecuteDeps,
  target: ExecutionTarget,
  planned: PlannedRun,
  attempt: number,
  phase: PhaseClock,
  host: HostCall | null = null,
): Promise<RunOutcome> {
  const { runId, scheduledAt, source } = planned;
  try {
    phase('wait');
    const rules = deps.responseRules.of(target.responseRules);
    const plain = () => callEndpoint(deps, target, runId, scheduledAt);
    const once = host ? hostCall(deps, host, target, runId, plain) : plain;
    // Without successWhen the call is passed as it is: no extra promise per call.
    const call = rules?.successWhen ? async () => judgeCall(rules, await once()) : once;
    const called = await deps.retries.call(target, { id: runId, scheduledAt, source }, call);
    phase('call');
    const run = toRun(target, runId, source, scheduledAt, called.outcome, attempt, called.attempts);
    if (host?.waitedMs != null) run.waitedForHostMs = host.waitedMs;
    return withRuleOutcome(rules, run, true);
  } catch (error) {
    await deps.recorder.abandon(target.id, runId, planned.scheduleVersion);
    throw error;
  }
}

/**
 * One call under a host budget: an attempt after the first takes its own place in the host's rate
 * (the run's call place is held already); a 429 with Retry-After holds the whole host.
 */
function hostCall(
  deps: ExecuteDeps,
  host: HostCall,
  target: ExecutionTarget,
  runId: string,
  call: () => Promise<HttpOutcome>,
): () => Promise<HttpOutcome> {
  let calls = 0;
  return async () => {
    calls += 1;
    if (calls > 1 && host.budget.limit.maxPerSecond !== null) {
      for (;;) {
        const place = await deps.hostBudgets!.take(host.budget, runId, executionBudgetMs(target));
        if (place.kind === 'taken') break;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, place.atMs - Date.now())));
      }
    }
    const outcome = await call();
    if (outcome.statusCode === 429) {
      const retryAfterMs = parseRetryAfterMs(outcome.retryAfter, outcome.completedAt);
      if (retryAfterMs !== null && retryAfterMs > 0) {
        await deps.hostBudgets!.hold(host.budget, retryAfterMs).catch(() => undefined);
      }
    }
    return outcome;
  };
}

/**
 * When an admitted run may start: its planned time, except while an endpoint with missedRuns `all`
 * catches up on missed slots (each planned at its past slot time, so each is recorded with it): then
 * each starts at least MISSED_RUN_SPACING_MS after the one before, not in a burst.
 */
export function startTime(target: ExecutionTarget, scheduledAt: Date): Date {
  if (target.missedRuns !== 'all' || target.lastRunAt === null) return scheduledAt;
  const spacedMs = target.lastRunAt.getTime() + MISSED_RUN_SPACING_MS;
  return scheduledAt.getTime() < spacedMs ? new Date(spacedMs) : scheduledAt;
}

/** The least time between the starts of two catch-up runs of missed slots (missedRuns `all`). */
export const MISSED_RUN_SPACING_MS = 1000;

type PhaseClock = (name: 'admission' | 'wait' | 'call' | 'record') => void;

/** Observes each phase's duration (kairos_execution_phase_seconds) from the end of the one before. */
function phaseClock(): PhaseClock {
  let from = performance.now();
  return (name) => {
    const now = performance.now();
    metrics.executionPhase.observe({ phase: name }, (now - from) / 1000);
    from = now;
  };
}

/**
 * Waits for an admitted run's time: its due job became due the dispatch lead before it
 * (packages/core/src/schedule/dispatch-lead.ts), so the admission's latency is not added to the
 * call. Wall-clock time on purpose (not `deps.now`, which tests may fix), and at most
 * MAX_DISPATCH_WAIT_MS: a due job much earlier than its run (hosts' clocks apart) runs at once.
 * A timer may fire up to a millisecond before the wall clock reaches its time (Node counts it on
 * the event loop's cached monotonic time; the benchmark saw calls arrive 0.5–0.7 ms early), so the
 * wait ends only once Date.now(), which rounds down, has reached it: a run never starts early.
 * Null when the run is due already, as every run is once the executor is behind: no promise and
 * no turn of the event loop then.
 */
export function untilDue(scheduledAt: Date): Promise<void> | null {
  const until = Math.min(scheduledAt.getTime(), Date.now() + MAX_DISPATCH_WAIT_MS);
  if (until <= Date.now()) return null;
  return (async () => {
    for (let waitMs = until - Date.now(); waitMs > 0; waitMs = until - Date.now()) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  })();
}

/**
 * "Test now": runs even when paused; refused when archived; never touches scheduling state. Its
 * successWhen decides its status, and it records the rules it matches, which do not act.
 */
export async function executeTestRun(deps: ExecuteDeps, payload: TestRunPayload): Promise<TestRunResult> {
  const target = await loadExecutionTarget(deps.db, payload.endpointId);
  if (!target || target.accountId !== payload.accountId) throw new Error(`endpoint ${payload.endpointId} not found`);
  if (target.archivedAt) throw new Error(`endpoint ${payload.endpointId} is archived`);
  const rules = deps.responseRules.of(target.responseRules);
  const run = await deps.callSlots(target.maxResponseSizeKb, async (callEnded) => {
    const scheduledAt = deps.now();
    const outcome = judgeCall(rules, await callEndpoint(deps, target, payload.runId, scheduledAt));
    callEnded();
    const tested = toRun(target, payload.runId, 'test', scheduledAt, outcome, 1, null);
    return deps.recorder.recordTest(withRuleOutcome(rules, tested, false));
  });
  return {
    runId: run.id,
    status: run.status,
    durationMs: run.durationMs,
    statusCode: run.statusCode,
    ...(run.status === 'success' ? { responseBody: run.responseBody } : { errorMessage: run.errorMessage ?? 'failed' }),
  };
}

/**
 * One call of a run's endpoint (scheduled or Test now), signed with the account's key (and the previous
 * one in its grace window); exported with toRun for bench/skeleton.ts, which puts Kairos's call into the
 * card's shape.
 */
export async function callEndpoint(
  deps: Pick<ExecuteDeps, 'http' | 'signingKeys' | 'now' | 'secrets'>,
  target: ExecutionTarget,
  runId: string,
  scheduledAt: Date,
): Promise<HttpOutcome> {
  // Sensitive header values stored sealed: opened for the call (cached by ciphertext, as signing
  // keys are). Sealed or stored plain before, they are never recorded: what the run keeps (an
  // error, a response echoing them) shows the mask in their place.
  let headers = target.headers;
  if (target.sealedHeaders !== null) {
    try {
      headers = openHeaders(target.headers, target.sealedHeaders, (sealed) => deps.signingKeys.decrypt(sealed));
    } catch {
      return failedBeforeSending(
        deps.now(),
        'invalid_request',
        "the endpoint's sensitive header values could not be decrypted (KAIROS_MASTER_KEY changed?); the request was not sent",
      );
    }
  }
  const values = sensitiveHeaderValues(headers);
  if (values.length === 0 && target.sealedHeaders === null) return callWithSecrets(deps, target, runId, scheduledAt);
  const outcome = await callWithSecrets(deps, { ...target, headers, sealedHeaders: null }, runId, scheduledAt);
  if (values.length === 0) return outcome;
  return {
    ...outcome,
    errorMessage: maskHeaderValues(outcome.errorMessage, values) as string | null,
    finalUrl: maskHeaderValues(outcome.finalUrl, values) as string | null,
    responseBody: maskHeaderValues(outcome.responseBody, values) as HttpOutcome['responseBody'],
  };
}

async function callWithSecrets(
  deps: Pick<ExecuteDeps, 'http' | 'signingKeys' | 'now' | 'secrets'>,
  target: ExecutionTarget,
  runId: string,
  scheduledAt: Date,
): Promise<HttpOutcome> {
  // Shared secrets: only a target with `{{` somewhere looks further (referencedSecretNames).
  const names = referencedSecretNames(target.url, target.headers, target.body);
  if (names.length === 0) return callResolvedEndpoint(deps, target, runId, scheduledAt);
  let resolved: Awaited<ReturnType<SecretResolver['resolve']>>;
  try {
    resolved = deps.secrets ? await deps.secrets.resolve(target.accountId, names) : { ok: false, missing: names };
  } catch (error) {
    return failedBeforeSending(
      deps.now(),
      'invalid_request',
      `shared secrets could not be read: ${(error as Error).message}`,
    );
  }
  if (!resolved.ok) {
    const list = resolved.missing.join(', ');
    return failedBeforeSending(
      deps.now(),
      'secret_missing',
      `the account has no secret named ${list} (referenced as ${resolved.missing.map((name) => `{{secrets.${name}}}`).join(', ')}); the request was not sent`,
    );
  }
  const { values } = resolved;
  const headers = target.headers
    ? Object.fromEntries(
        Object.entries(target.headers).map(([name, value]) => [name, substituteSecrets(value, values)]),
      )
    : target.headers;
  const outcome = await callResolvedEndpoint(
    deps,
    {
      ...target,
      url: substituteSecrets(target.url, values, encodeURIComponent),
      headers,
      body: substituteSecretsDeep(target.body, values) as ExecutionTarget['body'],
    },
    runId,
    scheduledAt,
  );
  // What is recorded (and logged, and shown) names the secret, never its value.
  const mask = (text: string | null) => (text === null ? null : maskSecrets(text, values));
  return {
    ...outcome,
    errorMessage: mask(outcome.errorMessage),
    finalUrl: mask(outcome.finalUrl),
    responseBody: maskSecretsDeep(outcome.responseBody, values),
  };
}

function failedBeforeSending(now: Date, errorKind: HttpErrorKind, errorMessage: string): HttpOutcome {
  return {
    status: 'failed',
    statusCode: null,
    durationMs: 0,
    startedAt: now,
    completedAt: now,
    responseBody: null,
    responseFormat: null,
    responseTruncated: false,
    responseBodyAltered: false,
    responseSizeBytes: null,
    errorKind,
    errorMessage,
    finalUrl: null,
  };
}

async function callResolvedEndpoint(
  deps: Pick<ExecuteDeps, 'http' | 'signingKeys' | 'now'>,
  target: ExecutionTarget,
  runId: string,
  scheduledAt: Date,
): Promise<HttpOutcome> {
  // Cached by ciphertext: a rotated key signs the very next request (signing-keys.ts). A key that
  // cannot be decrypted fails the run: a request never leaves unsigned by accident.
  // The previous key signs too while the account's rotation grace window runs (opt-in).
  let signingKey: string | null;
  let previousSigningKey: string | null = null;
  try {
    signingKey = target.encryptedSigningKey ? deps.signingKeys.decrypt(target.encryptedSigningKey) : null;
    const { encryptedPreviousSigningKey: encryptedPrevious, previousSigningKeyExpiresAt: expiresAt } = target;
    if (signingKey !== null && encryptedPrevious !== null && expiresAt !== null && expiresAt > deps.now()) {
      previousSigningKey = deps.signingKeys.decrypt(encryptedPrevious);
    }
  } catch {
    return failedBeforeSending(
      deps.now(),
      'invalid_request',
      'the signing key could not be decrypted (KAIROS_MASTER_KEY changed?); the request was not sent unsigned',
    );
  }
  const request = {
    method: target.method,
    url: target.url,
    runId,
    endpointId: target.id,
    propagateTrace: target.propagateTrace,
  };
  return traceOutboundCall(request, (traceHeaders) =>
    deps.http.execute(
      {
        url: target.url,
        method: target.method as HttpMethod,
        headers: target.headers ?? {},
        body: target.body as string | Record<string, unknown> | null,
        timeoutMs: target.timeoutMs,
        maxResponseSizeKb: target.maxResponseSizeKb,
      },
      {
        runId,
        endpointId: target.id,
        scheduledAt,
        lastRunAt: target.lastRunAt,
        signingKey,
        previousSigningKey,
        traceHeaders,
      },
    ),
  );
}

/** The Run an outcome records (every field the recorder writes). */
export function toRun(
  target: ExecutionTarget,
  runId: string,
  source: string,
  scheduledAt: Date,
  outcome: HttpOutcome,
  attempt: number,
  attempts: RunAttemptRecord[] | null,
): RunOutcome {
  return {
    id: runId,
    accountId: target.accountId,
    endpointId: target.id,
    source,
    status: outcome.status,
    scheduledAt,
    startedAt: outcome.startedAt,
    completedAt: outcome.completedAt,
    durationMs: outcome.durationMs,
    statusCode: outcome.statusCode,
    responseBody: outcome.responseBody,
    responseFormat: outcome.responseFormat,
    responseTruncated: outcome.responseTruncated,
    responseBodyAltered: outcome.responseBodyAltered,
    responseSizeBytes: outcome.responseSizeBytes,
    errorKind: outcome.errorKind,
    errorMessage: outcome.errorMessage,
    attempt,
    attempts,
  };
}
