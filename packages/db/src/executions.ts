/**
 * The executor's side of the data: read what to call, record what happened. Both are single SQL
 * statements on the hot path (ORM statements ran at about half the speed of raw SQL: measured 2026-11-21, 2 cores);
 * recording takes many runs per statement.
 */
import {
  RULE_RUN_TTL_MS,
  type JitterInput,
  type RetrySettings,
  type RuleOutcome,
  type RunAttemptRecord,
  type ScheduleInput,
} from '@kairos/core';
import type { Database } from './client.js';
import { datesInPlace, epochMs, fromEpochMs, type WithEpochMs } from './epoch-ms.js';
import { decideNextRun, type RunDecision, type ScheduleRow } from './schedule-state.js';

/**
 * What admission reads for one due run. It carries the schedule's inputs (ScheduleInput, and jitterMs):
 * the recorder plans the next run from them (nextRunAfter) when nothing but this run changes them.
 */
export interface ExecutionTarget extends ScheduleInput {
  id: string;
  accountId: string;
  jobStatus: 'active' | 'paused' | 'archived';
  archivedAt: Date | null;
  scheduleVersion: number;
  /**
   * The planned run stored at `scheduleVersion` (null: none): a due job names only the endpoint and
   * the version (packages/queue/src/payloads.ts), and the run comes from here when the versions match.
   */
  nextRunId: string | null;
  nextRunAt: Date | null;
  nextRunSource: string | null;
  pausedUntil: Date | null;
  url: string;
  method: string;
  /** Sensitive values read "********" here while sealedHeaders holds them (packages/core/src/signing/sealed-headers.ts). */
  headers: Record<string, string> | null;
  /** The endpoint's sensitive header values, encrypted under the master key; null: none (or stored plain). */
  sealedHeaders: string | null;
  body: string | Record<string, unknown> | unknown[] | null;
  timeoutMs: number;
  maxResponseSizeKb: number;
  /** Retries inside the run (opt-in); null: one call per run. */
  retry: RetrySettings | null;
  /** Send the execution's trace context to the target (only while tracing is on; docs/operations/observability.md "Tracing"). */
  propagateTrace: boolean;
  lastRunAt: Date | null;
  /** Planned time of the latest slot that has its run recorded (or was skipped for quota). */
  lastScheduledAt: Date | null;
  /** The account's signing key, encrypted; null when the account has none (then nothing is signed). */
  encryptedSigningKey: string | null;
  /** The key a rotation replaced, encrypted, while the account's grace window keeps it (else null). */
  encryptedPreviousSigningKey: string | null;
  /** When the previous key stops signing; the executor signs with it only before this instant. */
  previousSigningKeyExpiresAt: Date | null;
  tier: 'free' | 'pro' | 'enterprise';
  quotaOverrides: unknown;
  /** The account's AI scheduling setting: only then is a recorded run announced to the planner. */
  aiSchedulingEnabled: boolean;
  /** An operator disabled the account (accounts.disabledAt): its runs are skipped at admission. */
  accountDisabled: boolean;
  /**
   * The account's host budgets as stored (null: none, then the executor touches no budget), read with
   * the target: no extra round trip (services/executor/src/host-budget.ts).
   */
  hostLimits: unknown;
  /**
   * The endpoint's response rules as JSON text, { successWhen, rules, minIntervalMs, maxIntervalMs },
   * the planner's rules in force after the user's (AI_RULES_IN_FORCE); null when it has none (then nothing is parsed: services/executor/src/response-rules.ts
   * compiles the text once and keeps it by the text).
   */
  responseRules: string | null;
  /** Who set each hint (the rest of the schedule's inputs are ScheduleInput's, read with the target). */
  hintIntervalOrigin: string | null;
  hintOneShotOrigin: string | null;
  jitterMs: number;
  /** A change waits for the scheduler's recompute (scheduleDirtyAt set), or the endpoint is marked failing. */
  scheduleDirty: boolean;
  failing: boolean;
}

/** The target's times, read as epoch milliseconds and made Dates here (epoch-ms.ts). */
const TARGET_TIMES = [
  'archivedAt',
  'nextRunAt',
  'pausedUntil',
  'lastRunAt',
  'lastScheduledAt',
  'previousSigningKeyExpiresAt',
  'createdAt',
  'hintIntervalExpiresAt',
  'hintOneShotAt',
  'hintOneShotExpiresAt',
  'activeFrom',
  'activeUntil',
] as const;

/**
 * The planner's own rules (accounts.aiRules) are in force until they lapse, while the account keeps
 * AI rules and AI scheduling on and shadow mode off. They run after the user's rules in the same
 * list (the first matching interval and pause win, so the user's always do), and the planner's
 * successWhen only where the endpoint has none: read with the target, no extra round trip.
 */
const AI_RULES_IN_FORCE = `(e."aiRulesExpiresAt" > now() AND a."aiRules" AND a."aiSchedulingEnabled" AND NOT a."aiShadowMode"
  AND (e."aiRules" IS NOT NULL OR e."aiSuccessWhen" IS NOT NULL))`;

const SELECT_TARGETS = `
  SELECT e.id, e."accountId", j.status AS "jobStatus", ${epochMs('e."archivedAt"', 'archivedAt')}, e."scheduleVersion",
         e."nextRunId", ${epochMs('e."nextRunAt"', 'nextRunAt')}, e."nextRunSource", ${epochMs('e."pausedUntil"', 'pausedUntil')},
         e.url, e.method, e.headers, e."sealedHeaders", e.body, e."timeoutMs", e."maxResponseSizeKb", e.retry, e."propagateTrace",
         ${epochMs('e."lastRunAt"', 'lastRunAt')}, ${epochMs('e."lastScheduledAt"', 'lastScheduledAt')},
         k."encryptedKey" AS "encryptedSigningKey", k."previousEncryptedKey" AS "encryptedPreviousSigningKey",
         ${epochMs('k."previousExpiresAt"', 'previousSigningKeyExpiresAt')},
         a.tier, a."quotaOverrides", a."aiSchedulingEnabled", a."disabledAt" IS NOT NULL AS "accountDisabled",
         a."hostLimits",
         CASE WHEN e."successWhen" IS NOT NULL OR e.rules IS NOT NULL OR ${AI_RULES_IN_FORCE}
              THEN jsonb_build_object(
                     'successWhen', COALESCE(e."successWhen", CASE WHEN ${AI_RULES_IN_FORCE} THEN e."aiSuccessWhen" END),
                     'rules', CASE WHEN ${AI_RULES_IN_FORCE} AND e."aiRules" IS NOT NULL
                                   THEN COALESCE(e.rules, '[]'::jsonb) || e."aiRules" ELSE e.rules END,
                     'minIntervalMs', e."minIntervalMs", 'maxIntervalMs', e."maxIntervalMs")::text
         END AS "responseRules",
         e."baselineIntervalMs", e."baselineCron", e.timezone, e."minIntervalMs", e."maxIntervalMs", e."failureCount",
         ${epochMs('e."createdAt"', 'createdAt')}, e."hintIntervalMs", ${epochMs('e."hintIntervalExpiresAt"', 'hintIntervalExpiresAt')},
         ${epochMs('e."hintOneShotAt"', 'hintOneShotAt')}, ${epochMs('e."hintOneShotExpiresAt"', 'hintOneShotExpiresAt')},
         e."hintIntervalOrigin", e."hintOneShotOrigin", e."jitterMs", e."missedRuns",
         ${epochMs('e."activeFrom"', 'activeFrom')}, ${epochMs('e."activeUntil"', 'activeUntil')}, e.blackouts,
         e."scheduleDirtyAt" IS NOT NULL AS "scheduleDirty", e."failingSince" IS NOT NULL AS failing
    FROM endpoints e
    JOIN jobs j ON j.id = e."jobId"
    JOIN accounts a ON a.id = e."accountId"
    LEFT JOIN signing_keys k ON k."accountId" = e."accountId"`;

/** A row of SELECT_TARGETS: its times as epoch milliseconds. */
type TargetRow = WithEpochMs<ExecutionTarget, (typeof TARGET_TIMES)[number]>;

/** The row as an ExecutionTarget, its times made Dates in place. */
const targetOf = (row: TargetRow): ExecutionTarget => datesInPlace<ExecutionTarget>(row, TARGET_TIMES);

/**
 * The endpoint, its job's status and the account's signing key, read fresh for every execution.
 * `waitForSchedule`: read under FOR SHARE, which waits for a recompute holding the row lock to
 * commit. The scheduler adds a job before its transaction commits (to keep queue order under the
 * lock), so an executor can see a job whose version the row does not show yet.
 */
export async function loadExecutionTarget(
  db: Database,
  endpointId: string,
  options: { waitForSchedule?: boolean } = {},
): Promise<ExecutionTarget | null> {
  const { rows } = await db.pool.query<TargetRow>(
    `${SELECT_TARGETS} WHERE e.id = $1 ${options.waitForSchedule ? 'FOR SHARE OF e' : ''}`,
    [endpointId],
  );
  return rows[0] ? targetOf(rows[0]) : null;
}

/** Many endpoints' targets in one query (the executor's batched admission); absent ids are gone. */
export async function loadExecutionTargets(db: Database, endpointIds: string[]): Promise<Map<string, ExecutionTarget>> {
  const { rows } = await db.pool.query<TargetRow>({
    name: 'load-execution-targets',
    text: `${SELECT_TARGETS} WHERE e.id = ANY($1::uuid[])`,
    values: [[...new Set(endpointIds)]],
  });
  return new Map(rows.map((row) => [row.id, targetOf(row)]));
}

export interface RetrySchedule extends ScheduleInput, JitterInput {
  archivedAt: Date | null;
  jobStatus: 'active' | 'paused' | 'archived';
}

/**
 * An endpoint's scheduling inputs, read without a lock when one of its runs is about to retry (off the
 * hot path: only then): the executor finds the next planned run from them, which retries must not
 * reach (services/executor/src/retry.ts). Null when the endpoint is gone.
 */
export async function loadRetrySchedule(db: Database, endpointId: string): Promise<RetrySchedule | null> {
  const { rows } = await db.pool.query<RetrySchedule>(
    `SELECT e."baselineIntervalMs", e."baselineCron", e.timezone, e."minIntervalMs", e."maxIntervalMs",
            e."failureCount", e."lastScheduledAt", e."lastRunAt", e."createdAt", e."pausedUntil", e."hintIntervalMs",
            e."hintIntervalExpiresAt", e."hintOneShotAt", e."hintOneShotExpiresAt", e."jitterMs", e."missedRuns",
            e."activeFrom", e."activeUntil", e.blackouts,
            NULL AS "lastScheduledRunId", NULL AS "lastScheduledRunSource", e."archivedAt", j.status AS "jobStatus"
       FROM endpoints e JOIN jobs j ON j.id = e."jobId" WHERE e.id = $1`,
    [endpointId],
  );
  return rows[0] ?? null;
}

export interface RunOutcome {
  id: string;
  accountId: string;
  endpointId: string;
  source: string;
  status: 'success' | 'failed';
  scheduledAt: Date;
  startedAt: Date;
  completedAt: Date;
  durationMs: number;
  statusCode: number | null;
  responseBody: unknown;
  responseFormat: string | null;
  responseTruncated: boolean;
  responseBodyAltered: boolean;
  responseSizeBytes: number | null;
  errorKind: string | null;
  errorMessage: string | null;
  attempt: number;
  /** Every HTTP call of the run when its endpoint has retry set (core's RunAttemptRecord); else null. */
  attempts?: RunAttemptRecord[] | null;
  /** Milliseconds the call waited for its account's host budget; absent or null: it did not wait. */
  waitedForHostMs?: number | null;
  /** The run a replay repeats (a manual run only; absent otherwise). */
  replayOf?: string | null;
  /** A manual run's headers / body overrides, kept so that a replay repeats them (absent otherwise). */
  requestOverrides?: unknown;
  /** The endpoint's response rules that matched (a Test now run's too); absent when it has none. */
  rulesMatched?: string[];
  /** What those rules do (scheduled runs only): written by the record statement; absent without rules. */
  ruleOutcome?: RuleOutcome;
  /**
   * The endpoint's next planned run, stored by the record statement with this run when the row is
   * still at `plannedVersion` and nothing waits for a recompute (nextRunAfter).
   */
  nextRun?: RunDecision & { plannedVersion: number };
}

/** PostgreSQL's SQLSTATE for a unique index refusing a row (here: a run id recorded already). */
const UNIQUE_VIOLATION = '23505';

/** An input column of epoch milliseconds read in as the timestamptz of the same name. */
const timeIn = (column: 'scheduledAt' | 'startedAt' | 'completedAt') => `${fromEpochMs(`"${column}"`)} AS "${column}"`;

/**
 * The recorded runs' columns, read from a JSON array (one parameter however many runs). The three
 * times travel as epoch milliseconds (runsJson), not ISO strings: a Date's toJSON and PostgreSQL's
 * parse of timestamptz text cost the executor 2.3–2.4 µs and the backend 1.6–1.9 µs a run more
 * (runsJson of 100 runs: 3.5–3.6 against 1.2 µs of CPU a run; 200 runs through json_to_recordset,
 * the backend's CPU from /proc; docs/decisions/0018-times-as-epoch-milliseconds.md). Milliseconds are the columns' precision.
 */
const runsFromJson = (withRules: boolean) => `
  SELECT id, "accountId", "endpointId", source, status,
         ${timeIn('scheduledAt')}, ${timeIn('startedAt')}, ${timeIn('completedAt')},
         "durationMs", "statusCode", "responseBody", "responseFormat", "responseTruncated", "responseBodyAltered",
         "responseSizeBytes", "errorKind", "errorMessage", attempt, attempts, "waitedForHostMs", "replayOf", "requestOverrides",
         "nextRunId", ${fromEpochMs('"nextRunAt"')} AS "nextRunAt", "nextRunSource", "plannedVersion"${withRules ? RULE_COLUMNS : ''}
    FROM json_to_recordset($1::json) AS r(
    id uuid, "accountId" uuid, "endpointId" uuid, source text, status "RunStatus", "scheduledAt" bigint,
    "startedAt" bigint, "completedAt" bigint, "durationMs" int, "statusCode" int, "responseBody" jsonb,
    "responseFormat" text, "responseTruncated" boolean, "responseBodyAltered" boolean, "responseSizeBytes" int, "errorKind" text,
    "errorMessage" text, attempt int, attempts jsonb, "waitedForHostMs" int, "replayOf" uuid, "requestOverrides" jsonb, "nextRunId" uuid, "nextRunAt" bigint, "nextRunSource" text,
    "plannedVersion" int${withRules ? RULE_COLUMN_TYPES : ''})`;

/**
 * The response rules' part of a run (runsJson, only for endpoints that have rules): its matched
 * names, and what the rules do to the endpoint (RuleOutcome flattened). A batch whose runs have no
 * rules is written without these columns: endpoints without rules pay nothing for them.
 */
const RULE_COLUMNS = `, "rulesMatched", "ruleEvaluated", "ruleIntervalMs", "ruleIntervalRule",
         ${fromEpochMs('"ruleIntervalExpiresAt"')} AS "ruleIntervalExpiresAt", "rulePauseRule",
         ${fromEpochMs('"rulePauseUntil"')} AS "rulePauseUntil", "ruleStartsChain"`;
const RULE_COLUMN_TYPES = `, "rulesMatched" text[], "ruleEvaluated" boolean, "ruleIntervalMs" int,
    "ruleIntervalRule" text, "ruleIntervalExpiresAt" bigint, "rulePauseRule" text, "rulePauseUntil" bigint,
    "ruleStartsChain" boolean`;

/**
 * Inserts the rows of `input` (RUNS_FROM_JSON). `skipRecorded`: a run id already recorded is left alone
 * (ON CONFLICT DO NOTHING); without it such a run fails the whole statement (unique_violation).
 */
const insertRunsFromInput = (skipRecorded: boolean, withRules: boolean) => `
  INSERT INTO runs (id, "accountId", "endpointId", source, status, "scheduledAt", "startedAt", "completedAt",
                    "durationMs", "statusCode", "responseBody", "responseFormat", "responseTruncated",
                    "responseBodyAltered", "responseSizeBytes", "errorKind", "errorMessage", attempt, attempts,
                    "waitedForHostMs", "replayOf", "requestOverrides"${withRules ? ', "rulesMatched"' : ''})
  SELECT id, "accountId", "endpointId", source, status, "scheduledAt", "startedAt", "completedAt",
         "durationMs", "statusCode", "responseBody", "responseFormat", "responseTruncated",
         "responseBodyAltered", "responseSizeBytes", "errorKind", "errorMessage", attempt, attempts,
         "waitedForHostMs", "replayOf", "requestOverrides"
         ${withRules ? ', "rulesMatched"' : ''}
    FROM input
  ${skipRecorded ? 'ON CONFLICT (id) DO NOTHING' : ''}
  RETURNING id`;

/**
 * What recordScheduledRuns wrote: the run ids it recorded (a missing id: an earlier delivery already
 * did), and the endpoints among theirs whose state may now change to failing, recovered or
 * auto-paused (failureCount above 0 or failingSince set, the only rows applyEndpointTransitions
 * can change). An endpoint that is in neither state needs no transition statement: the recorder
 * skips it, one PostgreSQL statement per batch of runs that all succeeded on healthy endpoints.
 */
export interface RecordedRuns {
  ids: Set<string>;
  transitionCandidates: string[];
  /** The runs whose next planned run the statement stored, with the version it was stored at. */
  planned: Map<string, number>;
}

/**
 * What a run's rules do to its endpoint, in the record statement (core's applyRules decided it; the
 * backtest replays the same, packages/core/src/rules/backtest.ts):
 * - a matching interval rule sets the interval hint (origin rule, the rule's name as reason), or
 *   renews it: the same rule's hint keeps its hintIntervalSetAt, the time it started to match;
 * - a run its rules evaluated that matched no interval rule ends a hint a rule set (never one a
 *   user or the planner set: the latest decision wins, and theirs came later);
 * - a matching pause rule pauses the endpoint until its end, unless a longer pause is in force;
 * - a run whose rules start a chain (runEndpoint) marks its endpoint with the chain (chainRuns),
 *   unless the run is itself a chain's (source rule): it passes on the chain it belongs to.
 */
const ruleInterval = (column: string, value: string) =>
  `"${column}" = CASE WHEN r."ruleIntervalMs" IS NOT NULL THEN ${value}
                      WHEN r."ruleEvaluated" AND e."hintIntervalOrigin" = 'rule' THEN NULL
                      ELSE e."${column}" END`;
const RULE_PAUSES = `r."rulePauseUntil" IS NOT NULL AND (e."pausedUntil" IS NULL OR e."pausedUntil" < r."rulePauseUntil")`;
const RULE_SETS = `,
            ${ruleInterval('hintIntervalMs', 'r."ruleIntervalMs"')},
            ${ruleInterval('hintIntervalExpiresAt', 'r."ruleIntervalExpiresAt"')},
            ${ruleInterval('hintIntervalReason', 'r."ruleIntervalRule"')},
            ${ruleInterval('hintIntervalOrigin', `'rule'::"ChangeOrigin"`)},
            ${ruleInterval(
              'hintIntervalSetAt',
              `CASE WHEN e."hintIntervalOrigin" = 'rule' AND e."hintIntervalReason" = r."ruleIntervalRule"
                         AND e."hintIntervalExpiresAt" > r."startedAt"
                    THEN e."hintIntervalSetAt" ELSE r."completedAt" END`,
            )},
            "pausedUntil" = CASE WHEN ${RULE_PAUSES} THEN r."rulePauseUntil" ELSE e."pausedUntil" END,
            "pauseReason" = CASE WHEN ${RULE_PAUSES} THEN r."rulePauseRule" ELSE e."pauseReason" END,
            "pauseOrigin" = CASE WHEN ${RULE_PAUSES} THEN 'rule'::"ChangeOrigin" ELSE e."pauseOrigin" END,
            "autoPausedAt" = CASE WHEN ${RULE_PAUSES} THEN NULL ELSE e."autoPausedAt" END,
            "ruleChainId" = CASE WHEN r."ruleStartsChain" AND r.source <> 'rule' THEN r.id ELSE e."ruleChainId" END`;

/**
 * Whether the record statement stores a run's next planned run (nextRunAfter planned it from the row
 * as admission read it): only when the row is still that one for the schedule. Its version is the one
 * that ran, no change waits for a recompute (every change marks the row dirty or bumps its version),
 * and the run changes nothing but what nextRunAfter assumed: a success on a healthy endpoint, and with
 * response rules, no rule's interval or pause set, renewed or ended (RULE_SETS leaves the hints as read).
 * Evaluated on the row as it is when the update takes it (a recompute holding it first is seen).
 */
const plansNext = (withRules: boolean) =>
  `(r."nextRunId" IS NOT NULL AND r.status = 'success' AND e."scheduleVersion" = r."plannedVersion"
       AND e."scheduleDirtyAt" IS NULL AND e."failureCount" = 0 AND e."failingSince" IS NULL${
         withRules
           ? `
       AND r."ruleIntervalMs" IS NULL AND r."rulePauseUntil" IS NULL AND e."hintIntervalOrigin" IS DISTINCT FROM 'rule'`
           : ''
       })`;
const planned = (withRules: boolean, column: string, value: string) =>
  `"${column}" = CASE WHEN ${plansNext(withRules)} THEN ${value} ELSE e."${column}" END`;

/**
 * The record statement: the runs inserted (insertRunsFromInput) and each inserted run's endpoint
 * advanced, with its next planned run when the recorder could plan it (plansNext): then the
 * scheduler's recompute after the run, a second write of the row, is not needed. RETURNING reads the
 * endpoint's new row: failureCount after this run, and whether the next run was stored.
 */
const recordStatement = (skipRecorded: boolean, withRules: boolean) => `WITH input AS (${runsFromJson(withRules)}),
     inserted AS (${insertRunsFromInput(skipRecorded, withRules)})
     UPDATE endpoints e
        SET "failureCount" = CASE WHEN r.status = 'success' THEN 0 ELSE e."failureCount" + 1 END,
            "lastStatus" = r.status,
            "lastRunAt" = r."startedAt",
            "lastScheduledAt" = r."scheduledAt",
            "hintOneShotAt" = CASE WHEN r.source IN ('ai-oneshot', 'rule') THEN NULL ELSE e."hintOneShotAt" END,
            "hintOneShotExpiresAt" = CASE WHEN r.source IN ('ai-oneshot', 'rule') THEN NULL ELSE e."hintOneShotExpiresAt" END,
            "hintOneShotReason" = CASE WHEN r.source IN ('ai-oneshot', 'rule') THEN NULL ELSE e."hintOneShotReason" END,
            "hintOneShotOrigin" = CASE WHEN r.source IN ('ai-oneshot', 'rule') THEN NULL ELSE e."hintOneShotOrigin" END,
            "hintOneShotSetAt" = CASE WHEN r.source IN ('ai-oneshot', 'rule') THEN NULL ELSE e."hintOneShotSetAt" END,
            ${planned(withRules, 'nextRunAt', 'r."nextRunAt"')},
            ${planned(withRules, 'nextRunId', 'r."nextRunId"')},
            ${planned(withRules, 'nextRunSource', 'r."nextRunSource"')},
            ${planned(withRules, 'scheduleVersion', 'e."scheduleVersion" + 1')}
            ${withRules ? RULE_SETS : ''}
       FROM inserted i JOIN input r ON r.id = i.id
      WHERE e.id = r."endpointId"
     RETURNING r.id, e.id AS "endpointId",
               (e."failureCount" > 0 OR e."failingSince" IS NOT NULL) AS "transitionCandidate",
               CASE WHEN e."nextRunId" = r."nextRunId" THEN e."scheduleVersion" END AS "plannedVersion"`;

/** The four statements: [skipRecorded][withRules]. */
const RECORD = [recordStatement(false, false), recordStatement(false, true)] as const;
const RECORD_SKIPPING_RECORDED = [recordStatement(true, false), recordStatement(true, true)] as const;

type RecordedRow = { id: string; endpointId: string; transitionCandidate: boolean; plannedVersion: number | null };

/**
 * Records scheduled executions and advances their endpoints' state, many in one statement (the
 * executor's group commit): each run row and its endpoint's change commit together or not at
 * all, and a retried delivery (same run id) changes nothing. The failure count after the outcome
 * drives backoff; a one-shot that ran is consumed.
 *
 * A batch is written first as plain inserts and only when one of its runs is recorded already (a
 * retried delivery, rare) again with ON CONFLICT DO NOTHING: the conflict check cost every run
 * 73.5 against 64.7 µs of PostgreSQL CPU for the insert alone (5,000 endpoints' runs in batches of 100
 * from two connections; docs/decisions/0022-runs-inserted-without-conflict-check-or-account-key.md). The first statement
 * fails whole, so nothing of it stays; a delivery racing another of the same run waits for its commit
 * either way.
 */
export async function recordScheduledRuns(db: Database, runs: RunOutcome[]): Promise<RecordedRuns> {
  if (runs.length === 0) return { ids: new Set(), transitionCandidates: [], planned: new Map() };
  const withRules = hasRules(runs);
  const values = [runsJson(runs, withRules)];
  const variant = withRules ? 1 : 0;
  let rows: RecordedRow[];
  try {
    ({ rows } = await db.pool.query<RecordedRow>({
      name: withRules ? 'record-scheduled-runs-with-rules' : 'record-scheduled-runs',
      text: RECORD[variant],
      values,
    }));
  } catch (error) {
    if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    ({ rows } = await db.pool.query<RecordedRow>({
      name: withRules ? 'record-scheduled-runs-with-rules-again' : 'record-scheduled-runs-again',
      text: RECORD_SKIPPING_RECORDED[variant],
      values,
    }));
  }
  return {
    ids: new Set(rows.map((row) => row.id)),
    transitionCandidates: rows.filter((row) => row.transitionCandidate).map((row) => row.endpointId),
    planned: new Map(rows.flatMap((row) => (row.plannedVersion === null ? [] : [[row.id, row.plannedVersion]]))),
  };
}

/**
 * The endpoint's next planned run after `run`, as the scheduler's recompute would decide it
 * (decideNextRun) on the row the record statement leaves, planned from `target` (the row as admission
 * read it), or null when the recorder should leave it to the scheduler: the run failed (backoff and
 * failure transitions), consumed a one-shot, its response rules set, renew or end an interval or set a
 * pause (a rule's interval hint in force ends or goes on with this run either way), the row waits for
 * a recompute or is failing, or nothing is to be planned (the job is not active). The record
 * statement stores it only if the row is still as read (plansNext).
 */
export function nextRunAfter(
  target: ExecutionTarget,
  run: RunOutcome,
  scheduleVersion: number,
  now: Date,
): (RunDecision & { plannedVersion: number }) | null {
  if (run.status !== 'success' || run.source === 'ai-oneshot' || run.source === 'rule') return null;
  if (target.scheduleDirty || target.failing || target.failureCount !== 0) return null;
  if (target.responseRules !== null && changesSchedule(target, run)) return null;
  if (target.scheduleVersion !== scheduleVersion) return null;
  const after: ScheduleRow = {
    ...target,
    failureCount: 0,
    lastScheduledAt: run.scheduledAt,
    lastRunAt: run.startedAt,
    lastScheduledRunId: run.id,
    lastScheduledRunSource: run.source,
  };
  const next = decideNextRun(after, now);
  return next && { ...next, plannedVersion: scheduleVersion };
}

/** Whether a run's response rules change its endpoint's schedule in the record statement (RULE_SETS). */
function changesSchedule(target: ExecutionTarget, run: RunOutcome): boolean {
  const outcome = run.ruleOutcome;
  return target.hintIntervalOrigin === 'rule' || (!!outcome && (outcome.interval !== null || outcome.pause !== null));
}

/** One scheduled execution (see recordScheduledRuns). Whether this call recorded it. */
export async function recordScheduledRun(db: Database, run: RunOutcome): Promise<boolean> {
  return (await recordScheduledRuns(db, [run])).ids.has(run.id);
}

/**
 * A planned slot that did not run (the account's runs quota is exhausted, or the account is disabled):
 * the endpoint moves past it, so the next recompute plans the following slot instead of the same
 * overdue one.
 */
export async function recordSkippedSlot(
  db: Database,
  endpointId: string,
  scheduleVersion: number,
  scheduledAt: Date,
): Promise<void> {
  await recordSkippedSlots(db, [{ endpointId, scheduleVersion, scheduledAt }]);
}

/** Many skipped slots (recordSkippedSlot) in one statement: a disabled account's batch of due jobs. */
export async function recordSkippedSlots(
  db: Database,
  slots: { endpointId: string; scheduleVersion: number; scheduledAt: Date }[],
): Promise<void> {
  if (slots.length === 0) return;
  await db.pool.query(
    `UPDATE endpoints e SET "lastScheduledAt" = s."scheduledAt"
       FROM unnest($1::uuid[], $2::int[], $3::timestamptz[]) AS s(id, "scheduleVersion", "scheduledAt")
      WHERE e.id = s.id AND e."scheduleVersion" = s."scheduleVersion"`,
    [
      slots.map((slot) => slot.endpointId),
      slots.map((slot) => slot.scheduleVersion),
      slots.map((slot) => slot.scheduledAt),
    ],
  );
}

/**
 * One run of each endpoint a recorded run's runEndpoint rules name, started now: a one-shot hint with
 * origin rule (its run has source rule; the sibling's minIntervalMs still holds, and the request lapses
 * after RULE_RUN_TTL_MS), marked schedule-dirty in the same statement (the caller then tells the
 * scheduler). A chain runs an endpoint once: each sibling remembers the chain that last asked for it
 * (ruleChainId, the id of the chain's first run: a run with source rule passes its endpoint's chain
 * on), so a second request of the same chain, by a diamond or a loop that validation could not see
 * (two edits racing), is dropped. Only siblings: same job and account, not archived, not the run's
 * own endpoint. A separate statement, and only for runs whose rules ask for one: one statement may
 * not update a row twice, and a sibling may be in the same batch. Returns the endpoints asked to run.
 */
export async function chainRuns(db: Database, runs: RunOutcome[]): Promise<string[]> {
  const asking = runs.filter((run) => (run.ruleOutcome?.runEndpoints.length ?? 0) > 0);
  if (asking.length === 0) return [];
  const { rows } = await db.pool.query<{ id: string }>(
    `WITH input AS (
       SELECT * FROM json_to_recordset($1::json)
           AS r(id uuid, "endpointId" uuid, source text, "completedAt" bigint, targets uuid[], rules text[])
     ), asked AS (
       SELECT DISTINCT ON (t.target) t.target, t.rule, src.name AS "fromName", src."jobId", src."accountId",
              ${fromEpochMs('r."completedAt"')} AS at,
              CASE WHEN r.source = 'rule' THEN COALESCE(src."ruleChainId", r.id) ELSE r.id END AS chain
         FROM input r JOIN endpoints src ON src.id = r."endpointId",
              unnest(r.targets, r.rules) AS t(target, rule)
        WHERE t.target <> src.id
        ORDER BY t.target, r."completedAt"
     )
     UPDATE endpoints s
        SET "hintOneShotAt" = a.at, "hintOneShotExpiresAt" = a.at + $2 * interval '1 millisecond',
            "hintOneShotReason" = format('rule ''%s'' of endpoint "%s"', a.rule, a."fromName"),
            "hintOneShotOrigin" = 'rule', "hintOneShotSetAt" = a.at, "ruleChainId" = a.chain, "scheduleDirtyAt" = a.at
       FROM asked a
      WHERE s.id = a.target AND s."jobId" = a."jobId" AND s."accountId" = a."accountId" AND s."archivedAt" IS NULL
        AND s."ruleChainId" IS DISTINCT FROM a.chain
     RETURNING s.id`,
    [
      JSON.stringify(
        asking.map((run) => ({
          id: run.id,
          endpointId: run.endpointId,
          source: run.source,
          completedAt: run.completedAt.getTime(),
          targets: run.ruleOutcome!.runEndpoints.map((target) => target.endpointId),
          rules: run.ruleOutcome!.runEndpoints.map((target) => target.rule),
        })),
      ),
      RULE_RUN_TTL_MS,
    ],
  );
  return rows.map((row) => row.id);
}

/** Records a test execution: a run with source "test" and no change to the endpoint's state. */
export async function recordTestRun(db: Database, run: RunOutcome): Promise<void> {
  await insertRunRows(db, [run]);
}

/**
 * The runs' rows alone, without their endpoints' state: a Test now run, and the benchmark's cost of a
 * durable run (bench/run.ts). A run id already recorded is left alone.
 */
export async function insertRunRows(db: Database, runs: RunOutcome[]): Promise<void> {
  const withRules = hasRules(runs);
  await db.pool.query(`WITH input AS (${runsFromJson(withRules)}) ${insertRunsFromInput(true, withRules)}`, [
    runsJson(runs, withRules),
  ]);
}

const hasRules = (runs: RunOutcome[]) => runs.some((run) => run.rulesMatched !== undefined);

/**
 * Runs as the JSON array runsFromJson reads: times as epoch milliseconds, a body as a JSON value
 * (jsonb keeps it as is), and with rules their columns (RULE_COLUMNS).
 */
function runsJson(runs: RunOutcome[], withRules: boolean): string {
  return JSON.stringify(
    runs.map(({ ruleOutcome, nextRun, ...run }) => ({
      ...run,
      ...(nextRun
        ? {
            nextRunId: nextRun.runId,
            nextRunAt: nextRun.scheduledAt.getTime(),
            nextRunSource: nextRun.source,
            plannedVersion: nextRun.plannedVersion,
          }
        : {}),
      scheduledAt: run.scheduledAt.getTime(),
      startedAt: run.startedAt.getTime(),
      completedAt: run.completedAt.getTime(),
      responseBody: run.responseBody ?? null,
      ...(withRules && ruleOutcome ? ruleColumns(ruleOutcome) : {}),
    })),
  );
}

function ruleColumns(outcome: RuleOutcome) {
  return {
    ruleEvaluated: true,
    ruleIntervalMs: outcome.interval?.intervalMs ?? null,
    ruleIntervalRule: outcome.interval?.rule ?? null,
    ruleIntervalExpiresAt: outcome.interval?.expiresAtMs ?? null,
    rulePauseRule: outcome.pause?.rule ?? null,
    rulePauseUntil: outcome.pause?.untilMs ?? null,
    ruleStartsChain: outcome.runEndpoints.length > 0,
  };
}

/** Whether a run with this id is recorded (a manual run delivered again is not called again). */
export async function runRecorded(db: Database, runId: string): Promise<boolean> {
  const { rows } = await db.pool.query(`SELECT 1 FROM runs WHERE id = $1`, [runId]);
  return rows.length > 0;
}

/** Whether a backfill run of this endpoint's slot is recorded (a slot is backfilled once). */
export async function backfillSlotRecorded(db: Database, endpointId: string, scheduledAt: Date): Promise<boolean> {
  const { rows } = await db.pool.query(
    `SELECT 1 FROM runs WHERE "endpointId" = $1 AND source = 'backfill' AND "scheduledAt" = $2 LIMIT 1`,
    [endpointId, scheduledAt],
  );
  return rows.length > 0;
}
