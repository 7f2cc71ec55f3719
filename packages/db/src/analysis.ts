/**
 * The planner's data: the per-run gate (one SQL statement per recorded run: is an analysis due?),
 * the claim that keeps analyses of one endpoint from overlapping, what the model gets to read, the
 * sessions it leaves, the account's token budget, and the read side the API serves.
 *
 * No-overlap claim: an analysis starts by moving endpoints.lastAnalysisAt from the value the gate
 * read to the start time, in one conditional UPDATE (two planners racing on one endpoint: the
 * second UPDATE re-reads the row after the first commits and matches nothing). Its session is
 * recorded with createdAt = that start time, so "claimed but no session yet" means in progress
 * (core/planner/when-to-analyse.ts).
 */
import {
  boundParams,
  boundToolsCalled,
  cutText,
  cutToolName,
  notFound,
  SESSION_LIMITS,
  toStorableJson,
  toStorableText,
  type AnalysisSessionStatus,
  type HostLimit,
  type RunSummary,
} from '@kairos/core';
import type { Database } from './client.js';
import {
  Prisma,
  type AnalysisSession,
  type Endpoint,
  type Job,
  type Run,
  type Tier,
} from './generated/prisma/client.js';

export interface AnalysisGateRow {
  endpointId: string;
  accountId: string;
  jobId: string;
  jobStatus: 'active' | 'paused' | 'archived';
  archivedAt: Date | null;
  lastAnalysisAt: Date | null;
  nextAnalysisAt: Date | null;
  failureCount: number;
  aiSchedulingEnabled: boolean;
  /** An operator disabled the account (accounts.disabledAt): nothing is analysed. */
  accountDisabled: boolean;
  aiShadowMode: boolean;
  /** The account lets the planner write response rules (propose_rules). */
  aiRules: boolean;
  /** The planner's own rules are in force on this endpoint (AI rules on, written, not lapsed). */
  plannerRulesInForce: boolean;
  tier: Tier;
  quotaOverrides: unknown;
  aiTokensUsed: number;
  aiPeriodStartedAt: Date;
  /** The run the event announced; null when it is gone (retention) or not this endpoint's. */
  runStatus: 'success' | 'failed' | null;
  /** Status of the scheduled run before it; null when it was the first. */
  previousRunStatus: 'success' | 'failed' | null;
  lastSessionAt: Date | null;
  lastSessionStatus: AnalysisSessionStatus | null;
  lastSessionFailureCount: number | null;
}

/** What the planner needs to decide on one recorded run (null: no such endpoint in the account). */
export async function loadAnalysisGate(
  db: Database,
  accountId: string,
  endpointId: string,
  runId: string,
): Promise<AnalysisGateRow | null> {
  const { rows } = await db.pool.query<AnalysisGateRow>(
    `SELECT e.id AS "endpointId", e."accountId", e."jobId", j.status AS "jobStatus", e."archivedAt",
            e."lastAnalysisAt", e."nextAnalysisAt", e."failureCount",
            a."aiSchedulingEnabled", a."disabledAt" IS NOT NULL AS "accountDisabled", a."aiShadowMode", a."aiRules",
            (a."aiRules" AND NOT a."aiShadowMode" AND e."aiRulesExpiresAt" > now()
              AND (e."aiRules" IS NOT NULL OR e."aiSuccessWhen" IS NOT NULL)) AS "plannerRulesInForce",
            a.tier, a."quotaOverrides", a."aiTokensUsed", a."aiPeriodStartedAt",
            r.status AS "runStatus",
            (SELECT p.status FROM runs p
              WHERE p."endpointId" = e.id AND p.source <> 'test' AND p."startedAt" < r."startedAt"
              ORDER BY p."startedAt" DESC LIMIT 1) AS "previousRunStatus",
            s."createdAt" AS "lastSessionAt", s.status AS "lastSessionStatus",
            s."endpointFailureCount" AS "lastSessionFailureCount"
       FROM endpoints e
       JOIN jobs j ON j.id = e."jobId"
       JOIN accounts a ON a.id = e."accountId"
       LEFT JOIN runs r ON r.id = $3::uuid AND r."endpointId" = e.id
       LEFT JOIN LATERAL (
         SELECT "createdAt", status, "endpointFailureCount" FROM analysis_sessions
          WHERE "endpointId" = e.id ORDER BY "createdAt" DESC, id DESC LIMIT 1) s ON true
      WHERE e.id = $1::uuid AND e."accountId" = $2::uuid`,
    [endpointId, accountId, runId],
  );
  return rows[0] ?? null;
}

/** A change arrived during the spacing: analyse at `at` at the latest. */
export async function pullAnalysisForward(db: Database, endpointId: string, at: Date): Promise<void> {
  await db.pool.query(
    `UPDATE endpoints SET "nextAnalysisAt" = LEAST(COALESCE("nextAnalysisAt", $2), $2) WHERE id = $1::uuid`,
    [endpointId, at],
  );
}

/**
 * Claims the endpoint's next analysis: true when lastAnalysisAt still held `seenLastAnalysisAt`
 * (nobody else claimed since the gate read it). nextAnalysisAt becomes the lease end, so a claim
 * whose planner died is retried then.
 */
export async function claimAnalysis(
  db: Database,
  endpointId: string,
  seenLastAnalysisAt: Date | null,
  startedAt: Date,
  leaseEndsAt: Date,
): Promise<boolean> {
  const { rowCount } = await db.pool.query(
    `UPDATE endpoints SET "lastAnalysisAt" = $3, "nextAnalysisAt" = $4
      WHERE id = $1::uuid AND "lastAnalysisAt" IS NOT DISTINCT FROM $2::timestamptz`,
    [endpointId, seenLastAnalysisAt, startedAt, leaseEndsAt],
  );
  return rowCount === 1;
}

/** Failed analyses since the last completed one (drives the retry backoff). */
export async function countFailedAnalysesInARow(db: Database, endpointId: string): Promise<number> {
  const { rows } = await db.pool.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM analysis_sessions
      WHERE "endpointId" = $1::uuid AND status = 'failed'
        AND "createdAt" > COALESCE((SELECT max("createdAt") FROM analysis_sessions
                                     WHERE "endpointId" = $1::uuid AND status = 'completed'), '-infinity')`,
    [endpointId],
  );
  return rows[0]?.count ?? 0;
}

export interface PlannerContextData {
  endpoint: Endpoint;
  job: Pick<Job, 'id' | 'name' | 'description'>;
  run: Run | null;
  summary: RunSummary;
}

/** The endpoint (fresh), its job, the announced run and the last `sinceHours` of runs. */
export async function loadPlannerContext(
  db: Database,
  accountId: string,
  endpointId: string,
  runId: string,
  now: Date,
  sinceHours = 24,
): Promise<PlannerContextData> {
  const endpoint = await db.prisma.endpoint.findFirst({
    where: { id: endpointId, accountId },
    include: { job: { select: { id: true, name: true, description: true } } },
  });
  if (!endpoint) throw notFound('endpoint', endpointId);
  const { job, ...row } = endpoint;
  const run = await db.prisma.run.findFirst({ where: { id: runId, accountId, endpointId } });
  return { endpoint: row, job, run, summary: await summariseRuns(db, endpointId, now, sinceHours) };
}

async function summariseRuns(db: Database, endpointId: string, now: Date, sinceHours: number): Promise<RunSummary> {
  const since = new Date(now.getTime() - sinceHours * 3_600_000);
  const { rows } = await db.pool.query<{
    runs: number;
    successes: number;
    avg_ms: number | null;
    max_ms: number | null;
    first_at: Date | null;
    last_at: Date | null;
    codes: Record<string, number> | null;
  }>(
    `SELECT count(*)::int AS runs,
            (count(*) FILTER (WHERE status = 'success'))::int AS successes,
            round(avg("durationMs"))::int AS avg_ms, max("durationMs")::int AS max_ms,
            min("startedAt") AS first_at, max("startedAt") AS last_at,
            (SELECT jsonb_object_agg(code, n) FROM (
               SELECT COALESCE("statusCode"::text, 'none') AS code, count(*)::int AS n FROM runs
                WHERE "endpointId" = $1::uuid AND "startedAt" > $2 AND "startedAt" <= $3 GROUP BY 1) c) AS codes
       FROM runs WHERE "endpointId" = $1::uuid AND "startedAt" > $2 AND "startedAt" <= $3`,
    [endpointId, since, now],
  );
  const row = rows[0]!;
  return {
    sinceHours,
    runs: row.runs,
    successes: row.successes,
    failures: row.runs - row.successes,
    avgDurationMs: row.avg_ms ?? 0,
    maxDurationMs: row.max_ms ?? 0,
    statusCodes: row.codes ?? {},
    firstRunAt: row.first_at,
    lastRunAt: row.last_at,
  };
}

/** The endpoint's latest runs, newest first (test runs included: their source says so). */
export async function listRecentRuns(db: Database, accountId: string, endpointId: string, limit: number) {
  return db.prisma.run.findMany({
    where: { accountId, endpointId },
    orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
}

/**
 * The planner's response history: the endpoint's scheduled runs (no test runs: they say nothing of
 * the schedule) that started after `since`, newest first, at most `limit`.
 */
export async function listResponseHistory(
  db: Database,
  accountId: string,
  endpointId: string,
  since: Date,
  limit: number,
) {
  return db.prisma.run.findMany({
    where: { accountId, endpointId, source: { not: 'test' }, startedAt: { gt: since } },
    orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
}

export interface SiblingSnapshot {
  endpoint: Pick<
    Endpoint,
    'id' | 'name' | 'description' | 'baselineIntervalMs' | 'baselineCron' | 'failureCount' | 'pausedUntil' | 'lastRunAt'
  >;
  latestRun: Run | null;
}

/** The other endpoints of the job (not archived) and each one's latest run: a read-only snapshot. */
export async function loadSiblingSnapshots(
  db: Database,
  accountId: string,
  jobId: string,
  endpointId: string,
  limit: number,
): Promise<SiblingSnapshot[]> {
  const siblings = await db.prisma.endpoint.findMany({
    where: { accountId, jobId, archivedAt: null, id: { not: endpointId } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: limit,
    select: {
      id: true,
      name: true,
      description: true,
      baselineIntervalMs: true,
      baselineCron: true,
      failureCount: true,
      pausedUntil: true,
      lastRunAt: true,
      runs: { orderBy: [{ startedAt: 'desc' }, { id: 'desc' }], take: 1 },
    },
  });
  return siblings.map(({ runs, ...endpoint }) => ({ endpoint, latestRun: runs[0] ?? null }));
}

export interface PlannerActionEntry {
  tool: string;
  params: Record<string, unknown>;
  result: string;
  applied: boolean;
}

export interface NewAnalysisSession {
  id: string;
  accountId: string;
  endpointId: string;
  status: AnalysisSessionStatus;
  shadow: boolean;
  trigger: string;
  model: string | null;
  reasoning: string | null;
  toolsCalled: string[];
  actionsApplied: PlannerActionEntry[];
  inputTokens: number;
  outputTokens: number;
  /** Some answer carried no usage: its tokens are an estimate. */
  tokensEstimated?: boolean;
  /**
   * Tokens already charged to the account's budget while the analysis ran (the planner charges each
   * model call as it ends: ai-budget.ts); only the rest is added when the session is recorded.
   */
  chargedTokens?: number;
  /** The claim time: the session's createdAt (see the claim above). */
  startedAt: Date;
  durationMs: number;
  nextAnalysisAt: Date;
  endpointFailureCount: number;
  confidence: string | null;
  errorMessage: string | null;
}

const storableOrNull = (text: string | null, maxChars: number) =>
  text === null ? null : toStorableText(cutText(text, maxChars));

/** An action as stored: every part bounded (core session-bounds.ts) and storable. */
function storableAction(action: PlannerActionEntry): object {
  const bounded = {
    tool: cutToolName(action.tool),
    params: boundParams(action.params),
    result: cutText(action.result, SESSION_LIMITS.resultMaxChars),
    applied: action.applied,
  };
  return (toStorableJson(bounded)?.value ?? {
    tool: toStorableText(bounded.tool),
    params: null,
    result: toStorableText(bounded.result),
    applied: bounded.applied,
  }) as object;
}

/**
 * Records a session, sets the endpoint's nextAnalysisAt (only while the claim is still this
 * analysis's) and adds its tokens not yet charged to the account's budget period starting
 * `periodStartedAt` (a count from an earlier period restarts from these tokens), in one transaction.
 */
export async function recordAnalysisSession(
  db: Database,
  session: NewAnalysisSession,
  periodStartedAt: Date,
): Promise<void> {
  const tokens = session.inputTokens + session.outputTokens;
  const uncharged = tokens - (session.chargedTokens ?? 0);
  // Model text, tool names and tool input are outside data: one U+0000 or lone surrogate (a body cut
  // at 500 characters can split a surrogate pair) would fail this write, so they are made storable
  //, and of any size, so each part is cut to a few KB, marked (core session-bounds.ts).
  // Tool input nested past JSON_MAX_DEPTH is dropped (params null); the rest is kept.
  const actionsApplied = session.actionsApplied.map(storableAction);
  await db.prisma.$transaction(async (tx) => {
    await tx.analysisSession.create({
      data: {
        id: session.id,
        accountId: session.accountId,
        endpointId: session.endpointId,
        status: session.status,
        shadow: session.shadow,
        trigger: toStorableText(session.trigger),
        model: storableOrNull(session.model, SESSION_LIMITS.toolNameMaxChars),
        reasoning: storableOrNull(session.reasoning, SESSION_LIMITS.reasoningMaxChars),
        toolsCalled: boundToolsCalled(session.toolsCalled).map(toStorableText),
        actionsApplied: actionsApplied as Prisma.InputJsonValue,
        tokenUsage: tokens,
        inputTokens: session.inputTokens,
        outputTokens: session.outputTokens,
        tokensEstimated: session.tokensEstimated ?? false,
        durationMs: session.durationMs,
        nextAnalysisAt: session.nextAnalysisAt,
        endpointFailureCount: session.endpointFailureCount,
        confidence: storableOrNull(session.confidence, SESSION_LIMITS.toolNameMaxChars),
        errorMessage: storableOrNull(session.errorMessage, SESSION_LIMITS.errorMaxChars),
        createdAt: session.startedAt,
      },
    });
    await tx.$executeRaw`
      UPDATE endpoints SET "nextAnalysisAt" = ${session.nextAnalysisAt}
       WHERE id = ${session.endpointId}::uuid AND "lastAnalysisAt" = ${session.startedAt}`;
    if (uncharged > 0) {
      await tx.$executeRaw`
        UPDATE accounts
           SET "aiTokensUsed" = CASE WHEN "aiPeriodStartedAt" < ${periodStartedAt} THEN ${uncharged}
                                     ELSE "aiTokensUsed" + ${uncharged} END,
               "aiPeriodStartedAt" = GREATEST("aiPeriodStartedAt", ${periodStartedAt})
         WHERE id = ${session.accountId}::uuid`;
    }
  });
}

/** An endpoint's sessions, newest first. NOT_FOUND for another account's endpoint. */
export async function listAnalysisSessions(
  db: Database,
  accountId: string,
  endpointId: string,
  query: { limit: number; offset: number },
): Promise<{ sessions: AnalysisSession[]; total: number }> {
  const endpoint = await db.prisma.endpoint.findFirst({ where: { id: endpointId, accountId }, select: { id: true } });
  if (!endpoint) throw notFound('endpoint', endpointId);
  const where = { accountId, endpointId };
  const [sessions, total] = await Promise.all([
    db.prisma.analysisSession.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit,
      skip: query.offset,
    }),
    db.prisma.analysisSession.count({ where }),
  ]);
  return { sessions, total };
}

export async function getAnalysisSession(db: Database, accountId: string, sessionId: string): Promise<AnalysisSession> {
  const session = await db.prisma.analysisSession.findFirst({ where: { id: sessionId, accountId } });
  if (!session) throw notFound('analysis session', sessionId);
  return session;
}

/** Settings > AI Features, and the signing key's rotation grace window. Returns the updated account. */
export async function updateAccountAiSettings(
  db: Database,
  accountId: string,
  settings: {
    aiSchedulingEnabled?: boolean | undefined;
    aiShadowMode?: boolean | undefined;
    aiRules?: boolean | undefined;
    signingKeyGraceMinutes?: number | undefined;
    notifyFailureThreshold?: number | undefined;
    autoPauseAfterFailures?: number | null | undefined;
    /** Host budgets ([] or null: none, stored as null). */
    hostLimits?: HostLimit[] | null | undefined;
  },
) {
  const data = {
    ...(settings.notifyFailureThreshold === undefined
      ? {}
      : { notifyFailureThreshold: settings.notifyFailureThreshold }),
    ...(settings.autoPauseAfterFailures === undefined
      ? {}
      : { autoPauseAfterFailures: settings.autoPauseAfterFailures }),
    ...(settings.aiSchedulingEnabled === undefined ? {} : { aiSchedulingEnabled: settings.aiSchedulingEnabled }),
    ...(settings.aiShadowMode === undefined ? {} : { aiShadowMode: settings.aiShadowMode }),
    ...(settings.aiRules === undefined ? {} : { aiRules: settings.aiRules }),
    ...(settings.hostLimits === undefined
      ? {}
      : {
          hostLimits:
            settings.hostLimits === null || settings.hostLimits.length === 0
              ? Prisma.DbNull
              : (settings.hostLimits as unknown as Prisma.InputJsonValue),
        }),
    ...(settings.signingKeyGraceMinutes === undefined
      ? {}
      : { signingKeyGraceMinutes: settings.signingKeyGraceMinutes }),
  };
  const { count } = await db.prisma.account.updateMany({ where: { id: accountId }, data });
  if (count === 0) throw notFound('account', accountId);
  return db.prisma.account.findUniqueOrThrow({ where: { id: accountId } });
}
