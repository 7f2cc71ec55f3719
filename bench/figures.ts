/**
 * What a window measures, its types, and the arithmetic on them: per execution, means over pairs and
 * rounds. A Kairos window (kairos-window.ts) and a baseline's (baselines.ts) give the same kinds of figure.
 */
import type { CoreUse, summarize } from './lib.js';

export type Summary = ReturnType<typeof summarize>;

/** Context switches and read/write system calls per delivered execution, by process. */
export type Wakeups = Record<string, { switches: number; syscalls: number }>;

/** Per execution, the wake-up counts between two readings (lib.ts wakeupsOfGroups). */
export const perExecution = (before: Wakeups, after: Wakeups, executions: number): Wakeups =>
  Object.fromEntries(
    Object.keys(after).map((name) => [
      name,
      {
        switches: (after[name]!.switches - before[name]!.switches) / executions,
        syscalls: (after[name]!.syscalls - before[name]!.syscalls) / executions,
      },
    ]),
  );

/** CPU ms per execution by process between two readings (lib.ts cpuOf). */
export const cpuPerExecution = (before: Record<string, number>, after: Record<string, number>, executions: number) =>
  Object.fromEntries(Object.keys(after).map((name) => [name, (after[name]! - before[name]!) / executions]));

/**
 * Two settings in turn, the first going first in even rounds (0, 2, …) and the second in odd ones, so a host
 * that slows or speeds up over a run is not charged to one of them.
 */
export const inTurn = <T>(round: number, first: T, second: T): [T, T] =>
  round % 2 === 0 ? [first, second] : [second, first];

export interface KairosFigures {
  lateness: Summary;
  /** Calls that arrived at the target per second of the window. */
  delivered: number;
  /** Redis commands per delivered execution (every command, those run inside scripts included). */
  redisCommands: number;
  /** EVALSHA / EVAL per delivered execution (one per script run). */
  redisScripts: number;
  /** Redis commands per delivered execution on each node (one entry on a single server). */
  redisCommandsPerNode: number[];
  /** Redis commands per delivered execution by command name (those run inside scripts included). */
  redisByCommand: Record<string, number>;
  /** PostgreSQL transactions committed per recorded run (pg_stat_database; tableCounters says why per run). */
  pgTransactions: number;
  /** With countPg: statements (Q + E messages) and round trips (Q + S) per execution. */
  pgStatements?: number;
  pgRoundTrips?: number;
  /** Row updates of `endpoints` per execution, and the share PostgreSQL made HOT (no index entries written). */
  endpointUpdates: { perExecution: number; hot: number };
  /** WAL bytes the server wrote per recorded run over the same interval (counters.ts tableCounters). */
  walBytesPerRun: number;
  /** CPU ms per delivered execution by process (/proc/<pid>/stat over the window; lib.ts cpuOf). */
  cpu: Record<string, number>;
  /** Context switches and read/write system calls per delivered execution by process (lib.ts wakeupsOfGroups). */
  wakeups: Wakeups;
  /** The host's speed in the window: the µs of wall time a fixed task took, median (lib.ts hostSpeedDuring). */
  hostTaskUs: number;
  /** The calling process's main thread on a core and waiting for one, its other threads, and the cores' busy share (lib.ts coreUseFrom). */
  coreUse: CoreUse;
  /**
   * Mean ms a due job spent in each phase of the executor's processor over the window (the executor's
   * kairos_execution_phase_seconds; one executor only, else empty); the call holds a call slot.
   */
  slotPhases: Record<string, number>;
  /** The executor's call slots (kairos_executor_concurrency_limit: EXECUTOR_CONCURRENCY as it runs). */
  slots: number;
}

/**
 * A baseline's window (bare BullMQ + got, bench/floor.ts; the reference shape, bench/skeleton.ts; each
 * in processes of its own): its lateness (arrival − due), the calls that arrived per second in the
 * window, and the CPU ms one of its jobs costs by process.
 */
export interface BaselineFigures {
  lateness: Summary;
  delivered: number;
  cpu: Record<string, number>;
  /** Context switches and read/write system calls per job by process (lib.ts wakeupsOfGroups). */
  wakeups: Wakeups;
  /** The host's speed in the window: the µs of wall time a fixed task took, median (lib.ts hostSpeedDuring). */
  hostTaskUs: number;
  /** The calling process's main thread on a core and waiting for one, its other threads, and the cores' busy share (lib.ts coreUseFrom). */
  coreUse: CoreUse;
}

/** What reportExecutorCosts needs of one window: its rate and its span (CoreUse.windowUs). */
export type WindowFigures = Pick<BaselineFigures, 'delivered' | 'coreUse'>;

export const sumOf = (values: number[]): number => values.reduce((sum, value) => sum + value, 0);
export const meanOf = (values: number[]): number => sumOf(values) / values.length;

/** The mean of several runs' figures (delivered, round trips, CPU); lateness from the first. */
export function meanFigures(runs: KairosFigures[]): KairosFigures {
  const mean = (pick: (run: KairosFigures) => number) => meanOf(runs.map(pick));
  return {
    ...runs[0]!,
    delivered: mean((run) => run.delivered),
    redisCommands: mean((run) => run.redisCommands),
    redisScripts: mean((run) => run.redisScripts),
    pgTransactions: mean((run) => run.pgTransactions),
    endpointUpdates: {
      perExecution: mean((run) => run.endpointUpdates.perExecution),
      hot: mean((run) => run.endpointUpdates.hot),
    },
    walBytesPerRun: mean((run) => run.walBytesPerRun),
    hostTaskUs: mean((run) => run.hostTaskUs),
    coreUse: meanCoreUse(runs),
    cpu: Object.fromEntries(Object.keys(runs[0]!.cpu).map((name) => [name, mean((run) => run.cpu[name]!)])),
    wakeups: meanWakeups(runs),
    slotPhases: Object.fromEntries(
      Object.keys(runs[0]!.slotPhases).map((phase) => [phase, mean((run) => run.slotPhases[phase] ?? 0)]),
    ),
  };
}

/** The mean of a baseline's saturated windows. */
export function meanBaseline(runs: BaselineFigures[]): BaselineFigures {
  return {
    lateness: runs.at(-1)!.lateness,
    delivered: meanOf(runs.map((run) => run.delivered)),
    cpu: Object.fromEntries(Object.keys(runs[0]!.cpu).map((name) => [name, meanOf(runs.map((run) => run.cpu[name]!))])),
    wakeups: meanWakeups(runs),
    hostTaskUs: meanOf(runs.map((run) => run.hostTaskUs)),
    coreUse: meanCoreUse(runs),
  };
}

/** The mean of several windows' wake-ups per execution, process by process. */
export const meanWakeups = (runs: { wakeups: Wakeups }[]): Wakeups =>
  Object.fromEntries(
    Object.keys(runs[0]!.wakeups).map((name) => [
      name,
      {
        switches: meanOf(runs.map((run) => run.wakeups[name]!.switches)),
        syscalls: meanOf(runs.map((run) => run.wakeups[name]!.syscalls)),
      },
    ]),
  );

export const meanCoreUse = (runs: { coreUse: CoreUse }[]): CoreUse => ({
  runMsPerS: meanOf(runs.map((run) => run.coreUse.runMsPerS)),
  waitMsPerS: meanOf(runs.map((run) => run.coreUse.waitMsPerS)),
  otherThreadsMsPerS: meanOf(runs.map((run) => run.coreUse.otherThreadsMsPerS)),
  coresBusy: meanOf(runs.map((run) => run.coreUse.coresBusy)),
  // From the first window's start to the last one's end, the gaps between them included: a span to print,
  // not one to cut a profile to (reportExecutorCosts takes one window's).
  windowUs: [runs[0]!.coreUse.windowUs[0], runs.at(-1)!.coreUse.windowUs[1]],
});

/** CPU ms of every process together (a figure's `cpu`). */
export const cpuTotal = (cpu: Record<string, number>): number => sumOf(Object.values(cpu));
