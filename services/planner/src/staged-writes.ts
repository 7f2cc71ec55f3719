/**
 * The write tools of one analysis (propose_interval, propose_next_time, pause_until, clear_hints):
 * staged while the model talks, applied all together when the analysis completes, or not at all.
 *
 *   stage    each proposal is judged by the governor (core/planner/governor.ts) against the
 *            endpoint as the proposals before it leave it (the row read at the first write, with
 *            the staged changes on top); the model is told the verdict ("applied: …" means it
 *            applies when the analysis completes; the system prompt says so);
 *   apply    on completion (submit_analysis, or an answer without tools), in one transaction under
 *            the endpoint's row lock (db applyPlannerChanges): the AI switch and shadow mode are read
 *            again there, and each proposal is judged again against the locked row, with the time
 *            it was made, so a user's pause or hint set meanwhile still wins. Then one notice to the
 *            scheduler, one endpoint.paused_by_planner for the pause that stands (not one per call),
 *            and one audit row per applied change;
 *   discard  any failure (step limit, timeout, an incomplete answer, the budget, a model error)
 *            applies nothing, so a retry never repeats half of an earlier analysis.
 *
 * In shadow mode proposals are judged the same way and nothing is applied.
 *
 * propose_rules (offered only with the account's AI rules on) stages the planner's own response
 * rules the same way; before it is answered, the rules the governor lets through are replayed over
 * the endpoint's recorded runs (core createBacktest, as POST /api/endpoints/{id}/backtest does, after
 * the user's rules), and what they would have done is part of the answer and of the session.
 */
import {
  AI_RULE_LIMITS,
  AppError,
  compileResponseRules,
  createBacktest,
  governClearHints,
  governRulesProposal,
  governIntervalProposal,
  governNextTimeProposal,
  governPause,
  type GovernorVerdict,
  type PlannerChange,
  type PlannerStagedTool,
  type PlannerToolInput,
  type ResponseRule,
  type SuccessWhen,
} from '@kairos/core';
import {
  applyPlannerChanges,
  changeData,
  forEachRecordedRun,
  raiseEndpointEvent,
  recordAudit,
  type AiSwitches,
  type Database,
  type Endpoint,
  type PlannerActionEntry,
} from '@kairos/db';
import type { NotificationQueue, ScheduleNotifier } from '@kairos/queue';

export interface StagedWritesOptions {
  db: Database;
  notifier: ScheduleNotifier;
  accountId: string;
  endpointId: string;
  sessionId: string;
  /** Shadow mode when the analysis began (read again when its changes would apply). */
  shadow: boolean;
  /** The account's minimum interval (tier quota): a floor for interval proposals. */
  accountMinIntervalMs: number;
  now: () => Date;
  /** endpoint.paused_by_planner notifications; absent: none are raised. */
  notifications?: NotificationQueue;
  onNotificationError?: (error: Error) => void;
}

interface StagedWrite {
  tool: PlannerStagedTool;
  input: unknown;
  /** When the model proposed it: the governor judges it at this time, at staging and when applied. */
  at: Date;
  summary: string;
  /** Its entry in the session's actionsApplied, completed when the analysis ends. */
  entry: PlannerActionEntry;
  /** The change the governor let through when it was applied. */
  applied?: PlannerChange;
  /** What the answer adds after the verdict (the backtest of proposed rules). */
  note: string;
}

const AUDIT_ACTIONS: Record<string, string> = {
  'interval-hint': 'endpoint.interval_hint_set',
  'one-shot-hint': 'endpoint.one_shot_hint_set',
  pause: 'endpoint.paused',
  resume: 'endpoint.resumed',
  'clear-hints': 'endpoint.hints_cleared',
  'ai-rules': 'endpoint.ai_rules_set',
};

/** Runs a backtest replays for a proposal of rules (the API's default). */
const BACKTEST_RUNS = 500;

function judge(
  tool: PlannerStagedTool,
  input: unknown,
  target: Endpoint,
  now: Date,
  accountMinIntervalMs: number,
): GovernorVerdict {
  switch (tool) {
    case 'propose_rules':
      return governRulesProposal(target, input as PlannerToolInput<'propose_rules'>, now, accountMinIntervalMs);
    case 'propose_interval':
      return governIntervalProposal(target, input as PlannerToolInput<'propose_interval'>, now, accountMinIntervalMs);
    case 'propose_next_time':
      return governNextTimeProposal(target, input as PlannerToolInput<'propose_next_time'>, now);
    case 'pause_until':
      return governPause(target, input as PlannerToolInput<'pause_until'>, now);
    case 'clear_hints':
      return governClearHints(target, now);
  }
}

export function describeVerdict(verdict: GovernorVerdict, shadow: boolean): string {
  switch (verdict.kind) {
    case 'apply':
      return shadow ? `shadow mode, not applied: would apply ${verdict.summary}` : `applied: ${verdict.summary}`;
    case 'refuse':
      return `refused: ${verdict.summary}`;
    case 'noop':
      return `nothing to do: ${verdict.summary}`;
  }
}

const changeKind = (change: PlannerChange) =>
  change.kind === 'pause' && change.pausedUntil === null ? 'resume' : change.kind;

export class StagedWrites {
  readonly actions: PlannerActionEntry[] = [];
  /** Shadow mode was on when the changes would have applied (turned on during the analysis). */
  shadowAtApply = false;
  private readonly staged: StagedWrite[] = [];
  /** The endpoint as the staged changes leave it; undefined until the first write reads it. */
  private view: Endpoint | null | undefined;

  constructor(private readonly options: StagedWritesOptions) {}

  /** Judges a proposal (input already valid) and stages it when the governor lets it through. */
  async stage(tool: PlannerStagedTool, input: unknown, params: Record<string, unknown>): Promise<string> {
    const { db, accountId, endpointId, shadow, accountMinIntervalMs } = this.options;
    const at = this.options.now();
    this.view ??= await db.prisma.endpoint.findFirst({ where: { id: endpointId, accountId } });
    const verdict: GovernorVerdict = this.view
      ? judge(tool, input, this.view, at, accountMinIntervalMs)
      : { kind: 'refuse', summary: 'endpoint not found' };
    const note =
      verdict.kind === 'apply' && verdict.change.kind === 'ai-rules' && this.view
        ? `. ${await this.backtest(this.view, verdict.change)}`
        : '';
    const result = `${describeVerdict(verdict, shadow)}${note}`;
    const entry: PlannerActionEntry = { tool, params, result, applied: false };
    this.actions.push(entry);
    if (verdict.kind === 'apply' && this.view) {
      this.view = { ...this.view, ...(changeData(verdict.change, at) as Partial<Endpoint>) };
      this.staged.push({ tool, input, at, summary: verdict.summary, entry, note });
    }
    return result;
  }

  /**
   * The proposed rules replayed over the endpoint's recorded runs after the user's rules, with the
   * successWhen that would apply, in words for the model (and the session).
   */
  private async backtest(endpoint: Endpoint, change: Extract<PlannerChange, { kind: 'ai-rules' }>): Promise<string> {
    const { db, accountId, endpointId } = this.options;
    const userRules = (endpoint.rules as ResponseRule[] | null) ?? [];
    const aiRules = change.rules ?? [];
    const successWhen =
      (endpoint.successWhen as SuccessWhen | null) ??
      (change.successWhen === undefined ? (endpoint.aiSuccessWhen as SuccessWhen | null) : change.successWhen);
    const config = {
      successWhen,
      rules: userRules.length + aiRules.length > 0 ? [...userRules, ...aiRules] : null,
      minIntervalMs: endpoint.minIntervalMs,
      maxIntervalMs: endpoint.maxIntervalMs,
    };
    const replay = createBacktest(compileResponseRules(config), endpoint);
    await forEachRecordedRun(db, accountId, endpointId, BACKTEST_RUNS, (runs) => {
      for (const run of runs) replay.add(run);
    });
    const result = replay.result();
    if (result.runsReplayed === 0) return 'Backtest: no recorded runs to replay yet';
    const matched = new Map<string, number>(aiRules.map((rule) => [rule.name, 0]));
    for (const run of result.runs) {
      for (const name of run.rulesMatched) if (matched.has(name)) matched.set(name, matched.get(name)! + 1);
    }
    const perRule = [...matched]
      .map(([name, runs]) => `"${name.slice(AI_RULE_LIMITS.namePrefix.length)}" ${runs}`)
      .join(', ');
    const perDay = (value: number | null) => (value === null ? 'n/a' : String(value));
    return (
      `Backtest over the ${result.runsReplayed} latest recorded runs (${result.from} to ${result.to}): ` +
      `calls a day ${perDay(result.replayed.callsPerDay)} (recorded ${perDay(result.recorded.callsPerDay)}); ` +
      `runs matched per rule: ${perRule || 'none'}; ` +
      `status changes: ${result.statusChanges.length}; analyses it would have asked for: ${result.analysesRequested}`
    );
  }

  /** A refused call (invalid input) is listed with the proposals. */
  refuse(tool: PlannerStagedTool, params: Record<string, unknown>, result: string): void {
    this.actions.push({ tool, params, result, applied: false });
  }

  /** The analysis failed: nothing staged applies. */
  discard(): void {
    if (this.options.shadow) return;
    for (const write of this.staged) {
      write.entry.result = `not applied: the analysis did not finish; would apply ${write.summary}${write.note}`;
    }
  }

  /** The analysis completed: applies what the governor still lets through, all in one transaction. */
  async apply(): Promise<void> {
    if (this.staged.length === 0 || this.options.shadow) return;
    const { db, accountId, endpointId, accountMinIntervalMs } = this.options;
    const verdicts = new Map<StagedWrite, GovernorVerdict>();
    let switches: AiSwitches = { aiSchedulingEnabled: true, aiShadowMode: false, aiRules: true };
    try {
      await applyPlannerChanges(db, accountId, endpointId, this.options.now(), this.staged, (write, endpoint, read) => {
        switches = read;
        const verdict = judge(write.tool, write.input, endpoint, write.at, accountMinIntervalMs);
        verdicts.set(write, verdict);
        if (verdict.kind !== 'apply' || !read.aiSchedulingEnabled || read.aiShadowMode) return null;
        if (verdict.change.kind === 'ai-rules') {
          if (!read.aiRules) return null;
          return { change: { ...verdict.change, sessionId: this.options.sessionId }, at: write.at };
        }
        return { change: verdict.change, at: write.at };
      });
    } catch (error) {
      // Archived (CONFLICT) or deleted (NOT_FOUND) since the analysis began: nothing applied.
      if (!(error instanceof AppError)) throw error;
      for (const write of this.staged) write.entry.result = `refused: ${error.message}`;
      return;
    }
    this.shadowAtApply = switches.aiShadowMode;
    for (const write of this.staged) {
      const verdict = verdicts.get(write)!;
      if (verdict.kind === 'apply' && !switches.aiSchedulingEnabled) {
        write.entry.result = `not applied: AI scheduling was turned off during the analysis; would apply ${verdict.summary}`;
        continue;
      }
      if (verdict.kind === 'apply' && verdict.change.kind === 'ai-rules' && !switches.aiRules) {
        write.entry.result = `not applied: AI rules were turned off during the analysis; would apply ${verdict.summary}`;
        continue;
      }
      write.entry.result = `${describeVerdict(verdict, switches.aiShadowMode)}${write.note}`;
      if (verdict.kind === 'apply' && !switches.aiShadowMode) {
        write.entry.applied = true;
        write.applied = verdict.change;
      }
    }
    await this.announce(
      this.staged.filter((write) => write.applied !== undefined),
      this.options.now(),
    );
  }

  private async announce(applied: StagedWrite[], now: Date): Promise<void> {
    if (applied.length === 0) return;
    const { db, notifier, accountId, endpointId, sessionId } = this.options;
    const scheduling = applied.filter((write) => write.applied!.kind !== 'ai-rules');
    if (scheduling.length > 0) {
      await notifier.notify([endpointId], `planner-${changeKind(scheduling[scheduling.length - 1]!.applied!)}`);
    }
    const lastPause = applied.findLast((write) => write.applied!.kind === 'pause')?.applied;
    if (lastPause?.kind === 'pause' && lastPause.pausedUntil !== null) {
      await this.raisePausedByPlanner(lastPause.pausedUntil, lastPause.reason, now);
    }
    for (const write of applied) {
      await recordAudit(db, {
        accountId,
        actorType: 'planner',
        action: AUDIT_ACTIONS[changeKind(write.applied!)]!,
        targetType: 'endpoint',
        targetId: endpointId,
        // The validated input: made storable by parsePlannerToolInput (a raw U+0000 would fail this write).
        details: { sessionId, tool: write.tool, params: write.input as object, result: write.entry.result },
        at: now,
      });
    }
  }

  /** The pause is applied: a notification failure must not undo or fail it (logged instead). */
  private async raisePausedByPlanner(pausedUntil: Date, reason: string | null, now: Date): Promise<void> {
    const { db, notifications, accountId, endpointId } = this.options;
    if (!notifications) return;
    try {
      const ids = await raiseEndpointEvent(
        db,
        accountId,
        endpointId,
        'endpoint.paused_by_planner',
        { pausedUntil: pausedUntil.toISOString(), reason },
        now,
      );
      await notifications.enqueue(ids);
    } catch (error) {
      this.options.onNotificationError?.(error as Error);
    }
  }
}
