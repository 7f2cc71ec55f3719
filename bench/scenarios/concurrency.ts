/**
 * BENCH_ONLY=concurrency: sustained throughput by the executor's call slots (EXECUTOR_CONCURRENCY:
 * BENCH_CONCURRENCY, default 25,50,100,200) at saturation, AI off, other settings at their defaults.
 * The default is chosen from it (docs/decisions/0002-call-slots-200.md).
 */
import { ceiling } from '../baselines.js';
import { single, type Bench } from '../environment.js';
import { cpuTotal } from '../figures.js';
import { kairosScenario } from '../kairos-window.js';
import { ms, report, thousands } from '../report.js';
import { sustainedLoad } from '../settings.js';

export async function run({ target, redis }: Bench): Promise<void> {
  const levels = (process.env.BENCH_CONCURRENCY ?? '25,50,100,200').split(',');
  const load = sustainedLoad((await ceiling(target)).rate);
  report(
    `## Executor concurrency (EXECUTOR_CONCURRENCY; ${thousands(load)} endpoints at 1 s, other settings at their defaults)`,
  );
  report('');
  report('| executor concurrency | delivered/s | lateness p50 | p99 | CPU ms per execution | of which the executor |');
  report('|---|---|---|---|---|---|');
  for (const level of levels) {
    const figures = await kairosScenario(`concurrency_${level}`, load, target, single(redis), {
      ai: false,
      overrides: { EXECUTOR_CONCURRENCY: level },
    });
    report(
      `| ${level} | ${figures.delivered.toFixed(0)} | ${ms(figures.lateness.p50)} | ${ms(figures.lateness.p99)} | ${cpuTotal(figures.cpu).toFixed(3)} | ${figures.cpu.executor!.toFixed(3)} |`,
    );
  }
  report('');
}
