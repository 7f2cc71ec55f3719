/**
 * The benchmark's output: each line printed and kept, then written to a git-ignored results-latest
 * file in this folder (writeReport); and how figures are put in words.
 */
import { writeFileSync } from 'node:fs';
import { cpuTotal, type BaselineFigures, type KairosFigures, type Wakeups } from './figures.js';
import type { CoreUse } from './lib.js';

const lines: string[] = [];

/** Prints a line of the report and keeps it for writeReport. */
export const report = (line: string) => {
  console.log(line);
  lines.push(line);
};

/** Writes every line reported so far to `path`. */
export const writeReport = (path: string) => writeFileSync(path, `${lines.join('\n')}\n`);

export const thousands = (value: number) => value.toLocaleString('en');
/** A CPU difference in words: `0.120 ms more`, `0.031 ms less`. */
export const moreOrLess = (ms: number) => `${Math.abs(ms).toFixed(3)} ms ${ms < 0 ? 'less' : 'more'}`;
/** CPU ms per job by process and in all (a figure's `cpu`). */
export const cpuLine = (cpu: Record<string, number>) =>
  `${Object.entries(cpu)
    .map(([name, value]) => `${name} ${value.toFixed(3)}`)
    .join(', ')}; all ${cpuTotal(cpu).toFixed(3)} ms per job`;
export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 1 : 0) : '–');
export const pct = (value: number) => `${(value * 100).toFixed(0)} %`;
/**
 * A share compared with a target, to one decimal: a whole percent printed a 69.98 % mean as "70 %"
 * beside "≥ 70 %", a miss that read as met.
 */
export const pctAgainst = (value: number) => `${(value * 100).toFixed(1)} %`;
/** Each target row says whether its target held, from the figures it prints. */
export const verdict = (met: boolean) => (met ? 'met' : '**missed**');

/** Wake-ups per execution in words: `executor 2.1 / 3.4` (context switches / read and write calls). */
export const wakeupLine = (wakeups: Wakeups) =>
  Object.entries(wakeups)
    .map(([name, { switches, syscalls }]) => `${name} ${switches.toFixed(2)} / ${syscalls.toFixed(2)}`)
    .join(', ');

/** A window's CoreUse as printed: main thread on a core / waiting, other threads, the cores' busy share. */
export const coreUseText = (use: CoreUse): string =>
  Number.isNaN(use.runMsPerS)
    ? `n/a (cores ${(100 * use.coresBusy).toFixed(0)} %)`
    : `${use.runMsPerS.toFixed(0)} / ${use.waitMsPerS.toFixed(0)}, other threads ${use.otherThreadsMsPerS.toFixed(0)} ` +
      `(cores ${(100 * use.coresBusy).toFixed(0)} %)`;

/** A reference-shape or Kairos row at saturation in words: its rate, share of the ceiling, CPU, wake-ups and core use. */
export const rowText = (figures: BaselineFigures | KairosFigures, ceilingRate: number) =>
  `${figures.delivered.toFixed(0)}/s, ${pct(figures.delivered / ceilingRate)} of the ceiling (${cpuLine(figures.cpu)}; ` +
  `context switches / read and write calls per execution: ${wakeupLine(figures.wakeups)}; ` +
  `the executor's threads, ms per second: ${coreUseText(figures.coreUse)})`;
