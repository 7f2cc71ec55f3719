/**
 * BENCH_ONLY=tuned: lateness at 1,000 due/s and at BENCH_SUSTAINED due/s with settings that are not the
 * defaults (scheduler concurrency 100, executor 200: TUNED), labelled as such.
 */
import { single, type Bench } from '../environment.js';
import { kairosScenario } from '../kairos-window.js';
import { ms, report } from '../report.js';
import { SUSTAINED, TUNED } from '../settings.js';

export async function run({ target, redis }: Bench): Promise<void> {
  report('## Tuned runs (not the defaults: scheduler concurrency 100, executor 200; AI scheduling off)');
  report('');
  report('| due/s | lateness p50 | p99 | max | delivered/s |');
  report('|---|---|---|---|---|');
  for (const rate of [1000, SUSTAINED]) {
    const tuned = await kairosScenario(`tuned_${rate}`, rate, target, single(redis), {
      ai: false,
      overrides: TUNED,
    });
    report(
      `| ${rate} | ${ms(tuned.lateness.p50)} | ${ms(tuned.lateness.p99)} | ${ms(tuned.lateness.max)} | ${tuned.delivered.toFixed(0)} |`,
    );
  }
  report('');
}
