/**
 * The planner: consumes `run-completed-planner` (one event per recorded scheduled run) and decides, per
 * event, whether the endpoint is analysed now. The decision and its guards:
 *
 *   event → ignore if: test run, no API key (degraded: drained, nothing recorded; executors send
 *           none while no planner with a model announces itself, planner-presence.ts), endpoint
 *           archived / job not active, account's AI scheduling disabled
 *         → gate (core decideAnalysis): first analysis, nextAnalysisAt passed, or a change
 *           (first run, status flip, failures rose a backoff step), never while one is in
 *           progress, never within PLANNER_MIN_ANALYSIS_INTERVAL_MS of the last, and never
 *           before a failed analysis's backoff
 *         → model calls paused (a failing model, model-pause.ts)? deferred, nothing recorded
 *         → claim (conditional UPDATE of lastAnalysisAt: two planners never both analyse)
 *         → budget exhausted? record a skipped session; next look at the period end
 *         → tool loop with timeout and step limit (tool-loop.ts; each model call reserves its
 *           worst case of the budget and is charged as it ends) → the staged changes applied when
 *           it completed, discarded when it failed (staged-writes.ts) → session (completed/failed),
 *           nextAnalysisAt = the model's choice, or the retry backoff after a failure.
 *
 * So a burst of runs costs one cheap gate query each and at most one model conversation per
 * endpoint per spacing; PLANNER_CONCURRENCY bounds the conversations in flight per process.
 * Failures are values recorded in sessions; the worker never throws for them (no BullMQ retry,
 * so no tight loop).
 */
import type Anthropic from '@anthropic-ai/sdk';
import {
  AI_RULE_LIMITS,
  PLANNER_RULES_TOOL,
  aiBudgetPeriod,
  analysisRetryDelayMs,
  decideAnalysis,
  describeAiBudget,
  newId,
  PLANNER_LIMITS,
  PLANNER_RULES_PROMPT,
  PLANNER_SYSTEM_PROMPT,
  plannerToolDefinitions,
  renderAnalysisContext,
  tierLimits,
  type AnalysisGateInput,
  type AnalysisTrigger,
} from '@kairos/core';
import {
  chargeAiTokens,
  loadAnalysisGate,
  loadPlannerContext,
  recordAnalysisSession,
  renewAiRules,
  reserveAiTokens,
  type AnalysisGateRow,
  type Database,
  type NewAnalysisSession,
} from '@kairos/db';
import { claimAnalysis, countFailedAnalysesInARow, markScheduleDirty, pullAnalysisForward } from '@kairos/db/system';
import {
  QUEUES,
  SINGLE_SHARD,
  allShards,
  shardPrefix,
  announcePlanner,
  createScheduleChangeNotifier,
  createNotificationQueue,
  processJobSpan,
  runCompletedPayload,
  type NotificationQueue,
  type QueueShards,
  type RedisConnection,
  type RunCompletedPayload,
  type ScheduleNotifier,
} from '@kairos/queue';
import { metrics, type Logger } from '@kairos/runtime';
import { Worker, type Job } from 'bullmq';
import { AnalysisTools } from './analysis-tools.js';
import { createModelClient, describeModelError, type AnalysisFailure, type ModelSettings } from './model.js';
import { createMessage } from './model-call.js';
import { MODEL_PAUSE_DEFAULTS, ModelPause, type ModelPauseSettings } from './model-pause.js';
import { newLoopRecord, runToolLoop, type LoopRecord, type TokenBudget } from './tool-loop.js';

export interface PlannerOptions {
  db: Database;
  /** Factory: the BullMQ worker needs its own blocking connection. */
  connect: () => RedisConnection;
  prefix: string;
  /** Queue shards (packages/queue/src/shards.ts): run-completed-planner is consumed on every one. Default one. */
  shards?: QueueShards;
  logger: Logger;
  /** null: no ANTHROPIC_API_KEY; the planner drains its queue and analyses nothing. */
  model: ModelSettings | null;
  concurrency: number;
  minAnalysisIntervalMs: number;
  timeoutMs: number;
  maxSteps: number;
  maxTokensPerResponse?: number;
  /** When model calls pause during an outage (model-pause.ts); default MODEL_PAUSE_DEFAULTS. */
  modelPause?: Partial<ModelPauseSettings>;
  now?: () => Date;
}

export type PlannerOutcome =
  | {
      kind: 'ignored';
      reason: 'test-run' | 'no-api-key' | 'endpoint-gone' | 'endpoint-inactive' | 'ai-disabled' | 'account-disabled';
    }
  | {
      kind: 'deferred';
      reason: 'in-progress' | 'too-soon' | 'backing-off' | 'not-due' | 'claimed-elsewhere' | 'model-paused';
    }
  | { kind: 'analysed'; sessionId: string; status: NewAnalysisSession['status'] };

/** A claimed analysis lapses this long after its timeout (a planner that died mid-analysis). */
const LEASE_MARGIN_MS = 60_000;
const MS_PER_MINUTE = 60_000;

function toGateInput(gate: AnalysisGateRow, event: RunCompletedPayload, budgetRestored: boolean): AnalysisGateInput {
  return {
    lastAnalysisAt: gate.lastAnalysisAt,
    nextAnalysisAt: budgetRestored ? null : gate.nextAnalysisAt,
    lastSession:
      gate.lastSessionAt === null
        ? null
        : {
            createdAt: gate.lastSessionAt,
            status: gate.lastSessionStatus!,
            endpointFailureCount: gate.lastSessionFailureCount ?? 0,
          },
    runStatus: gate.runStatus ?? event.status,
    previousRunStatus: gate.previousRunStatus,
    failureCount: gate.failureCount,
    ruleRequested: event.analyse === true,
    plannerRulesInForce: gate.plannerRulesInForce,
  };
}

export class Planner {
  private readonly client: Anthropic | null;
  private readonly notifier: ScheduleNotifier;
  private readonly notifications: NotificationQueue;
  private readonly modelPause: ModelPause;
  private readonly connections: RedisConnection[] = [];
  private readonly now: () => Date;
  /** One worker per queue shard of run-completed-planner (packages/queue/src/shards.ts). */
  private workers: Worker[] = [];
  /** With a model: the presence that has executors announce runs (packages/queue/src/planner-presence.ts). */
  private presence: { stop: () => void } | null = null;
  private closed = false;

  constructor(private readonly options: PlannerOptions) {
    this.now = options.now ?? (() => new Date());
    this.client = options.model ? createModelClient(options.model) : null;
    this.notifier = createScheduleChangeNotifier({
      connection: this.connect(),
      prefix: options.prefix,
      markDirty: (endpointIds, now) => markScheduleDirty(options.db, endpointIds, now),
      onError: (error) =>
        options.logger.warn('schedule change not published; the reconcile sweep will apply it', {
          error: error.message,
        }),
    });
    this.notifications = createNotificationQueue(this.connections[0]!, options.prefix);
    this.modelPause = new ModelPause(
      this.connections[0]!,
      options.prefix,
      { ...MODEL_PAUSE_DEFAULTS, ...options.modelPause },
      (error) => options.logger.warn('pause of model calls not read or written', { error: error.message }),
    );
  }

  /** Whether a model is configured (false: degraded mode, nothing is analysed). */
  get isEnabled(): boolean {
    return this.client !== null;
  }

  private connect(): RedisConnection {
    const connection = this.options.connect();
    connection.on('error', (error) => this.options.logger.warn('redis connection error', { error: error.message }));
    this.connections.push(connection);
    return connection;
  }

  async start(): Promise<void> {
    const { prefix, concurrency, logger } = this.options;
    if (!this.client) {
      logger.warn('ANTHROPIC_API_KEY is not set: the planner runs in degraded mode (no analyses; baselines apply)');
    }
    const shards = allShards(this.options.shards ?? SINGLE_SHARD);
    this.workers = shards.map((shard) => {
      const worker = new Worker<RunCompletedPayload>(
        QUEUES.runCompletedForPlanner,
        // The analysis is a child of the execution's span: one trace from the change to the analysis.
        (job: Job<RunCompletedPayload>) =>
          processJobSpan(QUEUES.runCompletedForPlanner, job, () => this.handleRun(runCompletedPayload.parse(job.data))),
        {
          connection: this.connect(),
          prefix: shardPrefix(prefix, shard),
          // PLANNER_CONCURRENCY shared by the shards (endpoints hash evenly over them).
          concurrency: Math.max(1, Math.ceil(concurrency / shards.length)),
          removeOnComplete: { count: 1000 },
          removeOnFail: { count: 5000 },
        },
      );
      worker.on('failed', (job, error) =>
        logger.error('planner event failed', {
          jobId: job?.id,
          endpointId: job?.data.endpointId,
          error: error.message,
        }),
      );
      worker.on('error', (error) => logger.error('worker error', { error: error.message }));
      return worker;
    });
    await Promise.all(this.workers.map((worker) => worker.waitUntilReady()));
    // Without a model executors announce nothing (each event would cost a hop for nothing).
    if (this.client) {
      this.presence = announcePlanner(this.connections[0]!, prefix, (error) =>
        logger.warn('planner presence not renewed', { error: error.message }),
      );
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.presence?.stop();
    // Waits for analyses in flight (each bounded by PLANNER_TIMEOUT_MS) so their sessions are recorded.
    await Promise.all(this.workers.map((worker) => worker.close()));
    await this.notifier.close();
    await this.notifications.close();
    for (const connection of this.connections) connection.disconnect();
  }

  /** Handles one recorded run (the worker's processor; tests call it directly). */
  async handleRun(event: RunCompletedPayload): Promise<PlannerOutcome> {
    if (event.source === 'test') return { kind: 'ignored', reason: 'test-run' };
    if (!this.client) return { kind: 'ignored', reason: 'no-api-key' };
    const { db } = this.options;
    const gate = await loadAnalysisGate(db, event.accountId, event.endpointId, event.runId);
    if (!gate) return { kind: 'ignored', reason: 'endpoint-gone' };
    if (gate.archivedAt !== null || gate.jobStatus !== 'active') {
      return { kind: 'ignored', reason: 'endpoint-inactive' };
    }
    if (!gate.aiSchedulingEnabled) return { kind: 'ignored', reason: 'ai-disabled' };
    if (gate.accountDisabled) return { kind: 'ignored', reason: 'account-disabled' };

    const now = this.now();
    const budget = describeAiBudget(gate, now);
    // A budget skip waits for the period end, unless the budget was raised (or reset) since.
    const budgetRestored = gate.lastSessionStatus === 'skipped' && !budget.exhausted;
    const decision = decideAnalysis(
      toGateInput(gate, event, budgetRestored),
      { minIntervalMs: this.options.minAnalysisIntervalMs, leaseMs: this.leaseMs },
      now,
    );
    if (!decision.analyse) {
      if (decision.pullForwardTo) await pullAnalysisForward(db, gate.endpointId, decision.pullForwardTo);
      return { kind: 'deferred', reason: decision.reason };
    }
    // A failing model is not called; the endpoint is analysed on a run after the pause.
    if (await this.modelPause.current()) return { kind: 'deferred', reason: 'model-paused' };
    const leaseEndsAt = new Date(now.getTime() + this.leaseMs);
    if (!(await claimAnalysis(db, gate.endpointId, gate.lastAnalysisAt, now, leaseEndsAt))) {
      return { kind: 'deferred', reason: 'claimed-elsewhere' };
    }

    const session = this.newSession(gate, decision.trigger, now);
    if (budget.exhausted) {
      session.status = 'skipped';
      session.nextAnalysisAt = budget.periodEndsAt;
      session.errorMessage =
        `AI token budget exhausted: ${budget.tokensUsed} of ${budget.tokensLimit} tokens used this month; ` +
        `analyses resume at ${budget.periodEndsAt.toISOString()}`;
      metrics.plannerFailures.inc({ reason: 'budget-exhausted' });
      return this.record(session, budget.periodStartedAt);
    }
    await this.analyse(gate, event.runId, session, {
      limit: budget.tokensLimit,
      periodStartedAt: budget.periodStartedAt,
    });
    return this.record(session, budget.periodStartedAt);
  }

  private get leaseMs(): number {
    return this.options.timeoutMs + LEASE_MARGIN_MS;
  }

  private newSession(gate: AnalysisGateRow, trigger: AnalysisTrigger, startedAt: Date): NewAnalysisSession {
    return {
      id: newId(),
      accountId: gate.accountId,
      endpointId: gate.endpointId,
      status: 'completed',
      shadow: gate.aiShadowMode,
      trigger,
      model: null,
      reasoning: null,
      toolsCalled: [],
      actionsApplied: [],
      inputTokens: 0,
      outputTokens: 0,
      startedAt,
      durationMs: 0,
      nextAnalysisAt: startedAt,
      endpointFailureCount: gate.failureCount,
      confidence: null,
      errorMessage: null,
    };
  }

  /**
   * Runs the analysis and fills the session in. Model failures, the timeout, the step limit, an
   * incomplete answer and the budget end it as a failed session (retried after a backoff) that
   * applied nothing; they are not thrown.
   */
  private async analyse(
    gate: AnalysisGateRow,
    runId: string,
    session: NewAnalysisSession,
    budget: { limit: number; periodStartedAt: Date },
  ): Promise<void> {
    const started = Date.now();
    const record = newLoopRecord();
    session.model = this.options.model!.model;
    const tools = new AnalysisTools({
      db: this.options.db,
      notifier: this.notifier,
      notifications: this.notifications,
      onNotificationError: (error) =>
        this.options.logger.warn('endpoint.paused_by_planner not raised', { error: error.message }),
      accountId: gate.accountId,
      endpointId: gate.endpointId,
      jobId: gate.jobId,
      sessionId: session.id,
      shadow: gate.aiShadowMode,
      aiRules: gate.aiRules,
      accountMinIntervalMs: tierLimits(gate.tier, gate.quotaOverrides).minIntervalMs,
      now: this.now,
    });
    let failure = await this.converse(gate, runId, session, tools, record, this.tokenBudget(gate, budget), started);
    if (failure === null) {
      try {
        await tools.writes.apply();
        // An analysis that did not replace the planner's rules renews them (they lapse 7 days after it).
        if (gate.aiRules && !tools.toolsCalled.includes(PLANNER_RULES_TOOL)) {
          const at = this.now();
          await renewAiRules(
            this.options.db,
            gate.endpointId,
            at,
            new Date(at.getTime() + AI_RULE_LIMITS.ttlMinutes * MS_PER_MINUTE),
          );
        }
      } catch (error) {
        failure = describeModelError(error, this.options.timeoutMs, false);
      }
    }
    if (failure !== null) tools.writes.discard();
    session.shadow ||= tools.writes.shadowAtApply;
    session.toolsCalled = tools.toolsCalled;
    session.actionsApplied = tools.actions;
    session.inputTokens = record.inputTokens;
    session.outputTokens = record.outputTokens;
    session.tokensEstimated = record.tokensEstimated;
    // Every call was charged as it ended (tokenBudget).
    session.chargedTokens = record.inputTokens + record.outputTokens;
    session.durationMs = Date.now() - started;
    metrics.plannerTokens.inc(record.inputTokens + record.outputTokens);
    if (failure === null) return;
    metrics.plannerFailures.inc({ reason: failure.reason });
    session.status = 'failed';
    session.errorMessage = failure.message;
    // What the model wrote before it failed (the report's reasoning never came).
    session.reasoning = record.texts.length > 0 ? record.texts.join('\n\n') : null;
    const failuresInARow = (await countFailedAnalysesInARow(this.options.db, gate.endpointId)) + 1;
    const retryInMs = analysisRetryDelayMs(failuresInARow, this.options.minAnalysisIntervalMs);
    session.nextAnalysisAt = new Date(session.startedAt.getTime() + retryInMs);
  }

  /** The account's budget as the tool loop spends it: reserved before each call, charged after (db ai-budget.ts). */
  private tokenBudget(gate: AnalysisGateRow, budget: { limit: number; periodStartedAt: Date }): TokenBudget {
    const { db } = this.options;
    return {
      reserve: (tokens) => reserveAiTokens(db, gate.accountId, tokens, budget.limit, budget.periodStartedAt),
      charge: (reserved, used) =>
        chargeAiTokens(db, gate.accountId, {
          reserved,
          used,
          reservedIn: budget.periodStartedAt,
          periodStartedAt: aiBudgetPeriod(this.now()).startedAt,
        }),
    };
  }

  /** The tool loop under the timeout; the report goes into the session. Null when it completed. */
  private async converse(
    gate: AnalysisGateRow,
    runId: string,
    session: NewAnalysisSession,
    tools: AnalysisTools,
    record: LoopRecord,
    budget: TokenBudget,
    started: number,
  ): Promise<AnalysisFailure | null> {
    const { db, timeoutMs } = this.options;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const deadline = started + timeoutMs;
    try {
      const data = await loadPlannerContext(db, gate.accountId, gate.endpointId, runId, session.startedAt);
      // The announced run, or (deleted by retention meanwhile) the latest one.
      const latestRun = data.run ?? (await this.latestRun(gate));
      const outcome = await runToolLoop({
        createMessage: (request) =>
          createMessage(request, {
            client: this.client!,
            pause: this.modelPause,
            maxRetries: this.options.model!.maxRetries,
            signal: controller.signal,
            deadline,
          }),
        model: session.model!,
        system: gate.aiRules ? `${PLANNER_SYSTEM_PROMPT} ${PLANNER_RULES_PROMPT}` : PLANNER_SYSTEM_PROMPT,
        context: renderAnalysisContext({
          ...data,
          now: session.startedAt,
          latestRun,
          ...(gate.aiRules ? { responseRules: data.endpoint } : {}),
        }),
        tools: plannerToolDefinitions({ rules: gate.aiRules }),
        maxSteps: this.options.maxSteps,
        maxTokensPerResponse: this.options.maxTokensPerResponse ?? 1024,
        budget,
        runAnswer: (calls) => tools.runAnswer(calls),
        isSubmitted: () => tools.report !== null,
        record,
      });
      switch (outcome.kind) {
        case 'submitted': {
          const report = tools.report!;
          session.reasoning = report.reasoning;
          session.confidence = report.confidence;
          session.nextAnalysisAt = this.nextAnalysisAfter(session.startedAt, report.nextAnalysisInMinutes);
          return null;
        }
        case 'ended':
          session.reasoning = outcome.text || null;
          session.nextAnalysisAt = this.nextAnalysisAfter(session.startedAt, PLANNER_LIMITS.nextAnalysisDefaultMinutes);
          return null;
        case 'step-limit':
          return {
            reason: 'step-limit',
            message: `step limit reached: ${outcome.steps} model calls without submit_analysis`,
          };
        case 'budget-exhausted':
          return { reason: 'budget-exhausted', message: 'AI token budget exhausted during the analysis' };
        case 'incomplete': {
          const calls = outcome.toolNames.length;
          const notRun =
            calls === 0
              ? ''
              : `; its ${calls} tool call${calls === 1 ? '' : 's'} (${outcome.toolNames.join(', ')}) ${calls === 1 ? 'was' : 'were'} not run`;
          const stopped = outcome.stopReason === 'max_tokens' ? 'was cut off' : 'stopped early';
          return {
            reason: 'incomplete-answer',
            message: `the model's answer ${stopped} (stop_reason ${outcome.stopReason})${notRun}`,
          };
        }
      }
    } catch (error) {
      return describeModelError(error, timeoutMs, timedOut);
    } finally {
      clearTimeout(timer);
    }
  }

  private async latestRun(gate: AnalysisGateRow) {
    return this.options.db.prisma.run.findFirst({
      where: { accountId: gate.accountId, endpointId: gate.endpointId },
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
    });
  }

  /** The model's choice, bounded to 1 min - 24 h and never inside the spacing. */
  private nextAnalysisAfter(startedAt: Date, minutes: number): Date {
    const bounded = Math.min(
      Math.max(minutes, PLANNER_LIMITS.nextAnalysisMinMinutes),
      PLANNER_LIMITS.nextAnalysisMaxMinutes,
    );
    const delayMs = Math.max(bounded * MS_PER_MINUTE, this.options.minAnalysisIntervalMs);
    return new Date(startedAt.getTime() + delayMs);
  }

  private async record(session: NewAnalysisSession, periodStartedAt: Date): Promise<PlannerOutcome> {
    await recordAnalysisSession(this.options.db, session, periodStartedAt);
    this.options.logger.info('analysis recorded', {
      sessionId: session.id,
      endpointId: session.endpointId,
      status: session.status,
      trigger: session.trigger,
      shadow: session.shadow,
      tokens: session.inputTokens + session.outputTokens,
      tools: session.toolsCalled,
      ...(session.errorMessage ? { error: session.errorMessage } : {}),
    });
    return { kind: 'analysed', sessionId: session.id, status: session.status };
  }
}
