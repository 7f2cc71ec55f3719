/**
 * The backtest: an endpoint's recorded scheduled runs, oldest first, replayed through proposed
 * response rules with the evaluator the executor runs (evaluate.ts), so it reports exactly what
 * Kairos would have done with those responses: each run's status and matched rules, the interval and
 * pauses the rules would have set, and how many calls a day that means, beside the same figures as
 * recorded. Pure and incremental (`add` one run at a time: the API pages through thousands of runs
 * without holding their bodies), `now` never read.
 *
 * The replayed schedule after each run, until the next one, is (as the scheduler's priority table):
 * a rule's pause, else a rule's interval (until the first recorded run that does not match it; a
 * pause longer than its expiry ends it too), else the baseline: baselineIntervalMs × the backoff of the replayed failure count, or the cron
 * expression's times thinned by that backoff. AI hints are not replayed (they came from analyses of
 * the recorded runs). Runs are replayed at their recorded times: a rule's interval changes the calls a
 * day reported, not which responses exist to replay; a run inside a pause a rule set is reported as
 * not run (status null). Calls a day: the replayed schedule's calls over the window from the first
 * run's start to the last's, against the recorded runs over that window.
 */
import { backoffMultiplier } from '../schedule/backoff.js';
import { nextCronTime } from '../schedule/cron.js';
import { applyRules, judgeRun, type CompiledResponseRules, type JudgedRun } from './evaluate.js';

const DAY_MS = 86_400_000;
/** Cron times counted per backtest before the rest is extrapolated (a minute cron over months). */
const CRON_COUNT_MAX = 20_000;

export interface RecordedRun extends JudgedRun {
  id: string;
  startedAt: Date;
  completedAt: Date;
  /** What the run recorded (null: the endpoint had no rules then). */
  rulesMatched: string[] | null;
}

export interface BacktestBaseline {
  baselineIntervalMs: number | null;
  baselineCron: string | null;
  timezone: string;
}

export interface BacktestRun {
  runId: string;
  startedAt: string;
  statusCode: number | null;
  recordedStatus: 'success' | 'failed';
  /** null: a pause a rule set earlier in the replay would have stopped this run (nothing evaluated). */
  status: 'success' | 'failed' | null;
  errorKind: string | null;
  errorMessage: string | null;
  recordedRulesMatched: string[];
  rulesMatched: string[];
}

export interface BacktestSegment {
  from: string;
  to: string;
  /** What decides the schedule: a rule's interval, a rule's pause, or the baseline (with backoff). */
  source: 'rule' | 'paused' | 'baseline';
  /** The rule that set it (source rule or paused); null for the baseline. */
  rule: string | null;
  /** The interval between calls; null while paused and for a cron baseline. */
  intervalMs: number | null;
  backoffMultiplier: number;
}

export interface BacktestFigures {
  successCount: number;
  failureCount: number;
  /** Calls a day over the window; null with fewer than two runs. */
  callsPerDay: number | null;
}

export interface BacktestResult {
  runsReplayed: number;
  from: string | null;
  to: string | null;
  recorded: BacktestFigures;
  replayed: BacktestFigures;
  /** Runs whose status (or failure kind) the proposed successWhen changes. */
  statusChanges: Pick<
    BacktestRun,
    'runId' | 'startedAt' | 'recordedStatus' | 'status' | 'errorKind' | 'errorMessage'
  >[];
  runs: BacktestRun[];
  /** The schedule the rules would have applied between the runs, consecutive equal parts merged. */
  schedule: BacktestSegment[];
  /** Runs of other endpoints the rules would have started (runEndpoint), per endpoint. */
  endpointRuns: { endpointId: string; runs: number }[];
  /** Runs after which a rule would have asked for a planner analysis. */
  analysesRequested: number;
}

interface State {
  failureCount: number;
  interval: { rule: string; intervalMs: number; expiresAtMs: number } | null;
  pause: { rule: string; untilMs: number } | null;
}

export interface Backtest {
  add(run: RecordedRun): void;
  result(): BacktestResult;
}

export function createBacktest(compiled: CompiledResponseRules, baseline: BacktestBaseline): Backtest {
  const runs: BacktestRun[] = [];
  const schedule: BacktestSegment[] = [];
  const endpointRuns = new Map<string, number>();
  const recorded = { successCount: 0, failureCount: 0 };
  const replayed = { successCount: 0, failureCount: 0 };
  let analysesRequested = 0;
  let replayedCalls = 0;
  const state: State = { failureCount: 0, interval: null, pause: null };
  let previousStartMs: number | null = null;
  let firstStartMs: number | null = null;
  let lastStartMs: number | null = null;

  /** The schedule in force from `fromMs` to `toMs` (the time between two runs), and its calls. */
  const close = (fromMs: number, toMs: number) => {
    if (toMs <= fromMs) return;
    let at = fromMs;
    if (state.pause && state.pause.untilMs > at) {
      const end = Math.min(state.pause.untilMs, toMs);
      push({ from: at, to: end, source: 'paused', rule: state.pause.rule, intervalMs: null, backoffMultiplier: 1 });
      at = end;
    }
    // Between two recorded runs a rule's interval stays in force: the runs it would have added would
    // have renewed it (their responses are unknown; the next recorded run decides). Only a pause in
    // between can outlast it.
    const hint = state.interval && state.interval.expiresAtMs > at ? state.interval : null;
    if (at >= toMs) return;
    if (hint) {
      push({ from: at, to: toMs, source: 'rule', rule: hint.rule, intervalMs: hint.intervalMs, backoffMultiplier: 1 });
    } else {
      const multiplier = backoffMultiplier(state.failureCount);
      const intervalMs = baseline.baselineIntervalMs === null ? null : baseline.baselineIntervalMs * multiplier;
      push({ from: at, to: toMs, source: 'baseline', rule: null, intervalMs, backoffMultiplier: multiplier });
    }
  };

  let cronCounted = 0;
  const push = (part: { from: number; to: number } & Omit<BacktestSegment, 'from' | 'to'>) => {
    replayedCalls += callsIn(part.from, part.to, part);
    const last = schedule[schedule.length - 1];
    if (
      last &&
      last.to === new Date(part.from).toISOString() &&
      last.source === part.source &&
      last.rule === part.rule &&
      last.intervalMs === part.intervalMs &&
      last.backoffMultiplier === part.backoffMultiplier
    ) {
      last.to = new Date(part.to).toISOString();
      return;
    }
    schedule.push({ ...part, from: new Date(part.from).toISOString(), to: new Date(part.to).toISOString() });
  };

  const callsIn = (fromMs: number, toMs: number, part: Omit<BacktestSegment, 'from' | 'to'>): number => {
    if (part.source === 'paused') return 0;
    if (part.intervalMs !== null) return (toMs - fromMs) / part.intervalMs;
    if (baseline.baselineCron === null) return 0;
    // Cron: its times in the part, every backoffMultiplier-th one running; past CRON_COUNT_MAX times
    // in all, the rest of the part at the rate counted so far in it.
    let count = 0;
    let at = new Date(fromMs);
    while (cronCounted < CRON_COUNT_MAX) {
      at = nextCronTime(baseline.baselineCron, baseline.timezone, at);
      if (at.getTime() >= toMs) return count / part.backoffMultiplier;
      count += 1;
      cronCounted += 1;
    }
    const covered = at.getTime() - fromMs;
    return (covered > 0 ? (count * (toMs - fromMs)) / covered : 0) / part.backoffMultiplier;
  };

  return {
    add(run) {
      const startMs = run.startedAt.getTime();
      if (previousStartMs !== null) close(previousStartMs, startMs);
      previousStartMs = startMs;
      firstStartMs ??= startMs;
      lastStartMs = startMs;
      count(recorded, run.status);
      const base = {
        runId: run.id,
        startedAt: run.startedAt.toISOString(),
        statusCode: run.statusCode,
        recordedStatus: run.status,
        recordedRulesMatched: run.rulesMatched ?? [],
      };
      if (state.pause && state.pause.untilMs > startMs) {
        runs.push({ ...base, status: null, errorKind: null, errorMessage: null, rulesMatched: [] });
        return;
      }

      const verdict = judgeRun(compiled, run);
      const ruled = applyRules(compiled, { ...run, status: verdict.status }, run.completedAt);
      count(replayed, verdict.status);
      state.failureCount = verdict.status === 'success' ? 0 : state.failureCount + 1;
      if (ruled) {
        // As the recorder: a matching interval rule sets or renews its hint, any other run ends a rule's hint.
        state.interval = ruled.interval;
        if (ruled.pause && (state.pause === null || state.pause.untilMs < ruled.pause.untilMs))
          state.pause = ruled.pause;
        for (const { endpointId } of ruled.runEndpoints)
          endpointRuns.set(endpointId, (endpointRuns.get(endpointId) ?? 0) + 1);
        if (ruled.analyse) analysesRequested += 1;
      }
      runs.push({ ...base, ...verdict, rulesMatched: ruled?.matched ?? [] });
    },

    result() {
      const spanMs = firstStartMs !== null && lastStartMs !== null ? lastStartMs - firstStartMs : 0;
      const perDay = (calls: number) => (spanMs > 0 ? round2((calls * DAY_MS) / spanMs) : null);
      return {
        runsReplayed: runs.length,
        from: firstStartMs === null ? null : new Date(firstStartMs).toISOString(),
        to: lastStartMs === null ? null : new Date(lastStartMs).toISOString(),
        recorded: { ...recorded, callsPerDay: perDay(Math.max(0, runs.length - 1)) },
        replayed: { ...replayed, callsPerDay: perDay(replayedCalls) },
        statusChanges: runs
          .filter((run) => run.status !== null && run.status !== run.recordedStatus)
          .map(({ runId, startedAt, recordedStatus, status, errorKind, errorMessage }) => ({
            runId,
            startedAt,
            recordedStatus,
            status,
            errorKind,
            errorMessage,
          })),
        runs,
        schedule,
        endpointRuns: [...endpointRuns].map(([endpointId, count]) => ({ endpointId, runs: count })),
        analysesRequested,
      };
    },
  };
}

function count(figures: { successCount: number; failureCount: number }, status: 'success' | 'failed'): void {
  if (status === 'success') figures.successCount += 1;
  else figures.failureCount += 1;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
