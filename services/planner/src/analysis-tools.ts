/**
 * The tools of one analysis, bound to the endpoint under analysis (the model cannot name another:
 * no tool takes an endpoint id). Each call is validated against its zod schema (a malformed input
 * is answered as a tool error the model can fix), write tools go through the governor
 * (core/planner/governor.ts) under the endpoint's row lock, exactly as the API's scheduling routes
 * do (db changeEndpointSchedule, origin planner), then the scheduler is notified and the change
 * audited. In shadow mode write tools are judged the same way but nothing is written.
 */
import {
  AppError,
  describeRun,
  governClearHints,
  governIntervalProposal,
  governNextTimeProposal,
  governPause,
  isPlannerToolName,
  isPlannerWriteTool,
  parsePlannerToolInput,
  PLANNER_LIMITS,
  SUBMIT_ANALYSIS_TOOL,
  type AnalysisReport,
  type GovernorTarget,
  type GovernorVerdict,
  type PlannerToolInput,
  type PlannerWriteTool,
} from '@kairos/core';
import {
  changeEndpointSchedule,
  listRecentRuns,
  listResponseHistory,
  raiseEndpointEvent,
  loadSiblingSnapshots,
  recordAudit,
  type Database,
  type PlannerActionEntry,
} from '@kairos/db';
import type { NotificationQueue, ScheduleNotifier } from '@kairos/queue';

export interface ToolResult {
  content: string;
  isError: boolean;
}

export interface AnalysisToolsOptions {
  db: Database;
  notifier: ScheduleNotifier;
  accountId: string;
  endpointId: string;
  jobId: string;
  sessionId: string;
  shadow: boolean;
  /** The account's minimum interval (tier quota): a floor for interval proposals. */
  accountMinIntervalMs: number;
  now: () => Date;
  /** endpoint.paused_by_planner notifications (issue #16); absent: none are raised. */
  notifications?: NotificationQueue;
  onNotificationError?: (error: Error) => void;
}

const AUDIT_ACTIONS: Record<string, string> = {
  'interval-hint': 'endpoint.interval_hint_set',
  'one-shot-hint': 'endpoint.one_shot_hint_set',
  pause: 'endpoint.paused',
  resume: 'endpoint.resumed',
  'clear-hints': 'endpoint.hints_cleared',
};

/** Thrown inside the row-locked write to roll it back when the governor does not apply anything. */
class NotApplied extends Error {}

function judge(
  tool: PlannerWriteTool,
  input: unknown,
  target: GovernorTarget,
  now: Date,
  accountMinIntervalMs: number,
): GovernorVerdict {
  switch (tool) {
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

const asParams = (input: unknown): Record<string, unknown> =>
  input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};

export class AnalysisTools {
  /** Tool names in call order (the final submit_analysis is not listed: it is the report). */
  readonly toolsCalled: string[] = [];
  readonly actions: PlannerActionEntry[] = [];
  report: AnalysisReport | null = null;

  constructor(private readonly options: AnalysisToolsOptions) {}

  async call(name: string, input: unknown): Promise<ToolResult> {
    if (!isPlannerToolName(name)) {
      return { content: `unknown tool ${name}`, isError: true };
    }
    if (name !== SUBMIT_ANALYSIS_TOOL) this.toolsCalled.push(name);
    const parsed = parsePlannerToolInput(name, input);
    if (!parsed.ok) {
      if (isPlannerWriteTool(name)) {
        this.actions.push({
          tool: name,
          params: asParams(input),
          result: `refused: ${parsed.message}`,
          applied: false,
        });
      }
      return { content: parsed.message, isError: true };
    }
    switch (name) {
      case SUBMIT_ANALYSIS_TOOL:
        this.report = parsed.value as AnalysisReport;
        return { content: 'analysis recorded', isError: false };
      case 'get_latest_response':
        return this.read(await this.latestRuns(1).then((runs) => ({ latestRun: runs[0] ?? null })));
      case 'get_response_history': {
        const { limit } = parsed.value as PlannerToolInput<'get_response_history'>;
        return this.read(await this.history(limit ?? PLANNER_LIMITS.historyDefaultLimit));
      }
      case 'get_sibling_latest_responses':
        return this.read(await this.siblings());
      default:
        return this.write(name, parsed.value);
    }
  }

  private read(value: unknown): ToolResult {
    return { content: JSON.stringify(value), isError: false };
  }

  private async latestRuns(limit: number) {
    const { db, accountId, endpointId } = this.options;
    return (await listRecentRuns(db, accountId, endpointId, limit)).map(describeRun);
  }

  /** The scheduled runs of the last historySinceHours, newest first (the history the planner reads). */
  private async history(limit: number) {
    const { db, accountId, endpointId, now } = this.options;
    const sinceHours = PLANNER_LIMITS.historySinceHours;
    const since = new Date(now().getTime() - sinceHours * 3_600_000);
    const runs = await listResponseHistory(db, accountId, endpointId, since, limit);
    return { sinceHours, runs: runs.map(describeRun) };
  }

  private async siblings() {
    const { db, accountId, jobId, endpointId, now } = this.options;
    const at = now();
    const snapshots = await loadSiblingSnapshots(db, accountId, jobId, endpointId, PLANNER_LIMITS.siblingsMax);
    return {
      note: 'read-only snapshot of the other endpoints of this job',
      takenAt: at.toISOString(),
      siblings: snapshots.map(({ endpoint, latestRun }) => ({
        endpointId: endpoint.id,
        name: endpoint.name,
        description: endpoint.description,
        baseline: endpoint.baselineCron ? { cron: endpoint.baselineCron } : { intervalMs: endpoint.baselineIntervalMs },
        failureCount: endpoint.failureCount,
        paused: endpoint.pausedUntil !== null && endpoint.pausedUntil > at,
        latestRun: latestRun ? describeRun(latestRun) : null,
      })),
    };
  }

  private async write(tool: PlannerWriteTool, input: unknown): Promise<ToolResult> {
    const { db, accountId, endpointId, shadow } = this.options;
    const now = this.options.now();
    let verdict: GovernorVerdict;
    if (shadow) {
      const endpoint = await db.prisma.endpoint.findFirst({ where: { id: endpointId, accountId } });
      verdict = endpoint
        ? judge(tool, input, endpoint, now, this.options.accountMinIntervalMs)
        : { kind: 'refuse', summary: 'endpoint not found' };
    } else {
      verdict = await this.applyUnderLock(tool, input, now);
    }
    const result = describeVerdict(verdict, shadow);
    const applied = verdict.kind === 'apply' && !shadow;
    this.actions.push({ tool, params: asParams(input), result, applied });
    if (applied && verdict.kind === 'apply') await this.announce(tool, input, verdict, result, now);
    return { content: result, isError: false };
  }

  private async applyUnderLock(tool: PlannerWriteTool, input: unknown, now: Date): Promise<GovernorVerdict> {
    const { db, accountId, endpointId } = this.options;
    let verdict: GovernorVerdict | undefined;
    try {
      await changeEndpointSchedule(db, accountId, endpointId, now, (endpoint) => {
        verdict = judge(tool, input, endpoint, now, this.options.accountMinIntervalMs);
        if (verdict.kind !== 'apply') throw new NotApplied();
        return verdict.change;
      });
    } catch (error) {
      if (error instanceof NotApplied) return verdict!;
      // Archived (CONFLICT) or deleted (NOT_FOUND) since the analysis began.
      if (error instanceof AppError) return { kind: 'refuse', summary: error.message };
      throw error;
    }
    return verdict!;
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

  private async announce(
    tool: PlannerWriteTool,
    input: unknown,
    verdict: Extract<GovernorVerdict, { kind: 'apply' }>,
    result: string,
    now: Date,
  ): Promise<void> {
    const { db, notifier, accountId, endpointId, sessionId } = this.options;
    const { change } = verdict;
    const kind = change.kind === 'pause' && change.pausedUntil === null ? 'resume' : change.kind;
    await notifier.notify([endpointId], `planner-${kind}`);
    if (change.kind === 'pause' && change.pausedUntil !== null) {
      await this.raisePausedByPlanner(change.pausedUntil, change.reason, now);
    }
    await recordAudit(db, {
      accountId,
      actorType: 'planner',
      action: AUDIT_ACTIONS[kind]!,
      targetType: 'endpoint',
      targetId: endpointId,
      details: { sessionId, tool, params: asParams(input), result },
      at: now,
    });
  }
}

function describeVerdict(verdict: GovernorVerdict, shadow: boolean): string {
  switch (verdict.kind) {
    case 'apply':
      return shadow ? `shadow mode, not applied: would apply ${verdict.summary}` : `applied: ${verdict.summary}`;
    case 'refuse':
      return `refused: ${verdict.summary}`;
    case 'noop':
      return `nothing to do: ${verdict.summary}`;
  }
}
