/**
 * Where the CPU of one execution goes (reportCpu), what a durable run costs PostgreSQL at the least
 * (durableRunCost), and one executor's main thread beside another's by what ran it (reportExecutorCosts).
 */
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { createDatabase } from '@kairos/db';
import { insertRunRows, recordScheduledRuns, type RunOutcome } from '@kairos/db/system';
import { DUE_JOBS_PER_CALL_SLOT } from '../services/executor/src/call-slots.js';
import { runOutcome } from '../test/runs-fixtures.js';
import { insertEndpoints } from './environment.js';
import { cpuTotal, sumOf, type BaselineFigures, type KairosFigures, type WindowFigures } from './figures.js';
import { cpuMs, dropDatabase, freshDatabase } from './lib.js';
import { compareCosts, costsPerExecution, type CostRow } from './profile-diff.js';
import { cpuLine, moreOrLess, pct, report, thousands } from './report.js';

/** PostgreSQL's CPU per run for a durable run alone and for Kairos's record statement (durableRunCost). */
export interface DurableRunFigures {
  /** The run's row alone (insertRunRows), in batches of DURABLE_BATCH. */
  runRowMs: number;
  /** The record statement: the row and its endpoint's state (recordScheduledRuns), in the same batches. */
  recordMs: number;
}

/** The record batches' size at saturation: 3,400 runs/s at 0.06 PostgreSQL transactions per run. */
const DURABLE_BATCH = 50;

/**
 * What recording a run costs PostgreSQL at the least: 5,000 endpoints' runs written 12 times over one
 * connection, its backend's CPU read from /proc, the run rows alone and then Kairos's record statement,
 * alternated twice (the second of each counts: the first warms the plan and the pages). The rest of
 * PostgreSQL's share of an execution at saturation is the admission's read, the scheduler's recompute
 * and their commits.
 */
export async function durableRunCost(): Promise<DurableRunFigures> {
  const name = 'kairos_bench_durable';
  const url = await freshDatabase(name);
  const db = createDatabase({ url, poolMax: 1 });
  try {
    const endpointIds = await insertEndpoints(db, 5000, 'http://127.0.0.1:9/', false);
    const { rows } = await db.pool.query<{ pid: number; accountId: string }>(
      `SELECT pg_backend_pid() AS pid, "accountId" FROM endpoints LIMIT 1`,
    );
    const { pid, accountId } = rows[0]!;
    let from = Date.now() + 60_000;
    const measure = async (write: (runs: RunOutcome[]) => Promise<unknown>): Promise<number> => {
      const before = cpuMs(pid);
      let written = 0;
      for (let round = 0; round < 12; round += 1, from += 1000) {
        for (let index = 0; index < endpointIds.length; index += DURABLE_BATCH) {
          const at = new Date(from);
          // A 200 with a small JSON body, as the benchmark's target answers.
          const runs = endpointIds.slice(index, index + DURABLE_BATCH).map((endpointId) => ({
            ...runOutcome({ accountId, endpointId }, at),
            responseBody: { ok: true },
            responseFormat: 'json',
            responseSizeBytes: 11,
          }));
          await write(runs);
          written += runs.length;
        }
      }
      return (cpuMs(pid) - before) / written;
    };
    const figures = { runRowMs: 0, recordMs: 0 };
    for (let pass = 0; pass < 2; pass += 1) {
      figures.runRowMs = await measure((runs) => insertRunRows(db, runs));
      figures.recordMs = await measure((runs) => recordScheduledRuns(db, runs));
    }
    return figures;
  } finally {
    await db.close();
    await dropDatabase(name);
  }
}

/** One executor's profile for reportExecutorCosts: its file's stem (lib.ts startScript), its window, its name in the table. */
export interface ProfiledExecutor {
  profile: string;
  window: WindowFigures;
  label: string;
}

/**
 * BENCH_CPU_PROF with BENCH_ONLY=skeleton: one executor's main thread beside another's (Kairos's beside the
 * reference shape's with its stored plan; a step of Kairos's parts beside the step before it), µs per
 * execution by what ran it (profile-diff.ts), from the profiles of the last windows.
 */
export function reportExecutorCosts(dir: string, a: ProfiledExecutor, b: ProfiledExecutor): void {
  const [aPath, bPath] = [a, b].map(({ profile }) => join(dir, `${profile}.cpuprofile`));
  if (!existsSync(aPath!) || !existsSync(bPath!)) {
    report(`(no profiles ${a.profile} and ${b.profile} in ${dir}: their comparison is left out)`);
    return;
  }
  const rows = compareCosts(
    costsPerExecution(aPath!, a.window.delivered, a.window.coreUse.windowUs),
    costsPerExecution(bPath!, b.window.delivered, b.window.coreUse.windowUs),
  );
  report(
    `## The executor's main thread per execution by what ran it (µs; V8 CPU profiles, the measurement windows; ${a.label} at ${a.window.delivered.toFixed(0)}/s, ${b.label} at ${b.window.delivered.toFixed(0)}/s)`,
  );
  report('');
  report(`| cost | ${a.label} | ${b.label} | difference |`);
  report('|---|---|---|---|');
  const sum = (side: 'a' | 'b', from: CostRow[]) => from.reduce((total, row) => total + row[side], 0);
  const shown = rows.filter((row) => Math.abs(row.a - row.b) >= 1 || row.a >= 10);
  const rest = rows.filter((row) => !shown.includes(row));
  const line = (cost: string, a: number, b: number) =>
    report(`| ${cost} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a - b >= 0 ? '+' : '') + (a - b).toFixed(1)} |`);
  for (const row of shown) line(row.cost, row.a, row.b);
  line(`the rest (${rest.length} more, each under 1 µs apart)`, sum('a', rest), sum('b', rest));
  line('**all**', sum('a', rows), sum('b', rows));
  report('');
  // Batched work (PostgreSQL statements, Redis scripts) costs less per execution in fuller batches,
  // and the faster process fills them more: a difference there is partly the rate's.
  report(
    "Node's modules are charged to the library or Kairos code that called them (a socket write to ioredis, pg or got; node:crypto under signing to packages/core). Batched work costs less per execution in fuller batches: at different rates part of a difference in pg, ioredis and bullmq is the rate's.",
  );
  report('');
}

/**
 * Where the CPU of one execution goes at saturation, beside what one request costs got and the target
 * at the ceiling: the sum bounds the rate two cores can hold (2,000 CPU-ms per second), whatever the
 * concurrency settings.
 */
export function reportCpu(
  off: KairosFigures,
  on: KairosFigures,
  raw: { rate: number; gotCpuMs: number; targetCpuMs: number },
  floor: BaselineFigures,
  offered: number[],
  durable: DurableRunFigures,
  planned: BaselineFigures,
) {
  const total = (figures: KairosFigures) => cpuTotal(figures.cpu);
  const budgetMs = (cpus().length * 1000) / (0.7 * raw.rate);
  report(
    `## CPU per delivered execution at saturation (ms; ${offered.map(thousands).join(', ')} endpoints at 1 s; got's figures are the mean of the ceiling runs)`,
  );
  report('');
  report('| process | AI off | AI on, no model |');
  report('|---|---|---|');
  for (const name of Object.keys(off.cpu))
    report(`| ${name} | ${off.cpu[name]!.toFixed(3)} | ${on.cpu[name]!.toFixed(3)} |`);
  report(`| **all** | **${total(off).toFixed(3)}** | **${total(on).toFixed(3)}** |`);
  report('');
  report(
    `At the ceiling one request costs got ${raw.gotCpuMs.toFixed(3)} ms and the target ${raw.targetCpuMs.toFixed(3)} ms of CPU. ` +
      `${cpus().length} cores give ${cpus().length * 1000} CPU-ms per second: at ${total(off).toFixed(3)} ms per execution they hold at most ` +
      `${((cpus().length * 1000) / total(off)).toFixed(0)} executions/s; 70 % of the ceiling (${(0.7 * raw.rate).toFixed(0)}/s) needs ≤ ${budgetMs.toFixed(3)} ms ` +
      `for everything, the target's ${raw.targetCpuMs.toFixed(3)} ms included.`,
  );
  // The executor is bound by how long an execution holds one of its call slots (the call:
  // services/executor/src/call-slots.ts) as much as by CPU: at most EXECUTOR_CONCURRENCY / (slot time)
  // executions per second (Little's law). Its due workers take DUE_JOBS_PER_CALL_SLOT as many jobs, which
  // also spend admission, the wait (for the run's time, then for a slot) and the record in the processor.
  const phases = Object.entries(off.slotPhases);
  if (phases.length > 0) {
    const jobMs = sumOf(Object.values(off.slotPhases));
    const slotMs = off.slotPhases.call ?? 0;
    report(
      `A due job spent ${jobMs.toFixed(1)} ms in the executor's processor on average (AI off: ${phases.map(([phase, ms]) => `${phase} ${ms.toFixed(1)}`).join(', ')} ms; ` +
        `kairos_execution_phase_seconds; the wait includes waiting for a call slot), of which it held a call slot ${slotMs.toFixed(1)} ms: ` +
        `${off.slots} call slots so held carry at most ${((off.slots * 1000) / slotMs).toFixed(0)} executions/s, and ${DUE_JOBS_PER_CALL_SLOT * off.slots} due jobs ` +
        `at most ${((DUE_JOBS_PER_CALL_SLOT * off.slots * 1000) / jobMs).toFixed(0)}/s (BullMQ's own moves before and after the processor are not in it).`,
    );
  }
  // What the architecture's shape costs before Kairos adds anything: a BullMQ delayed job per call and got
  // (no PostgreSQL, no lock, no quota), at saturation in the floor's own windows.
  const parts = Object.entries(floor.cpu).map(([name, value]) => `${name} ${value.toFixed(3)}`);
  const floorTotal = cpuTotal(floor.cpu);
  // A durable run at the least: the floor plus the run's row in PostgreSQL, beside the budget; the rest
  // of Kairos's cost is its own work (lock, quota, the endpoint's state, the recompute, metrics).
  const durableMs = floorTotal + durable.runRowMs;
  report(
    `Bare BullMQ + got at saturation (${floor.delivered.toFixed(0)} jobs/s) costs ${floorTotal.toFixed(3)} ms per job (${parts.join(', ')}). ` +
      `A durable run adds at least its row in PostgreSQL: ${durable.runRowMs.toFixed(3)} ms in batches of ${DURABLE_BATCH} ` +
      `(${durable.recordMs.toFixed(3)} ms with its endpoint's state, Kairos's record statement; PostgreSQL's whole share of a Kairos execution ` +
      `is ${off.cpu.postgres!.toFixed(3)} ms with the admission's read and the scheduler's recompute). The floor with the run's row costs ` +
      `${durableMs.toFixed(3)} ms against the ${budgetMs.toFixed(3)} ms that 70 % of the ceiling allows, which leaves ` +
      `${(budgetMs - durableMs).toFixed(3)} ms for Kairos's own work; Kairos costs ${moreOrLess(total(off) - durableMs)} than the two.`,
  );
  // The floor is not the shape's least cost: its worker adds each next job itself, one round trip per
  // call, where the shape's scheduler adds a batch's in one write. The reference shape is the shape as
  // built, durable, before Kairos's own work; Kairos minus it, by process, is that work.
  const extra = Object.keys(off.cpu).map((name) => `${name} ${(off.cpu[name]! - (planned.cpu[name] ?? 0)).toFixed(3)}`);
  report(
    `The reference shape with the planned run stored (bench/skeleton.ts, ${planned.delivered.toFixed(0)} executions/s) costs ` +
      `${cpuTotal(planned.cpu).toFixed(3)} ms per execution (${cpuLine(planned.cpu)}), ${(budgetMs - cpuTotal(planned.cpu)).toFixed(3)} ms ` +
      `inside the budget. Kairos costs ${moreOrLess(total(off) - cpuTotal(planned.cpu))} (by process: ${extra.join(', ')}).`,
  );
  // The budget above counts every core-millisecond, but the durable rows have kept the cores at most
  // 85–93 % busy (the highest share of each day's runs, 2026-11-28; /proc/stat, every process's): their
  // executor's main thread, runnable nearly all of each second, waits for a core 22–34 % of it.
  // Neither an autogroup of its own (97.9 % of the rate) nor a second executor process (cores 99 %
  // busy, 10–22 % more CPU per execution) gives that share back; SCHED_FIFO did (+9–12 %) and needs
  // CAP_SYS_NICE (docs/decisions/0025-one-executor-thread-per-process.md). So the budget that holds is
  // the one at the share the cores gave.
  const busiest = Math.max(off.coreUse.coresBusy, planned.coreUse.coresBusy);
  const heldMs = budgetMs * busiest;
  const ofHeld = (ms: number) => `${ms.toFixed(3)} ms, ${pct(ms / heldMs)} of it`;
  report(
    `The cores were ${pct(off.coreUse.coresBusy)} busy in Kairos's windows and ${pct(planned.coreUse.coresBusy)} in the shape's with its stored plan; ` +
      `at ${pct(busiest)} busy, 70 % of the ceiling allows ${heldMs.toFixed(3)} ms per execution: the shape with its stored plan costs ` +
      `${ofHeld(cpuTotal(planned.cpu))}, Kairos ${ofHeld(total(off))}.`,
  );
  report('');
}
