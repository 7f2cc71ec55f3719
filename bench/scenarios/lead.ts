/**
 * BENCH_ONLY=lead: lateness by dispatch lead (SCHEDULER_DISPATCH_LEAD_MS: BENCH_LEADS, default
 * 0,100,200,300) at BENCH_LEAD_RATE due/s (default 1,000), and whether a run ever started early. The
 * default lead is chosen from it (docs/decisions/0001-dispatch-lead-300-ms.md).
 */
import { single, type Bench } from '../environment.js';
import { kairosScenario } from '../kairos-window.js';
import { ms, report } from '../report.js';

export async function run({ target, redis }: Bench): Promise<void> {
  const leads = (process.env.BENCH_LEADS ?? '0,100,200,300').split(',').map(Number);
  const rate = Number(process.env.BENCH_LEAD_RATE ?? 1000);
  report(`## Lateness by dispatch lead (SCHEDULER_DISPATCH_LEAD_MS; ${rate} due/s, other settings at their defaults)`);
  report('');
  report('| lead, ms | lateness p50 | p99 | max | never early (min ≥ 0) |');
  report('|---|---|---|---|---|');
  for (const lead of leads) {
    const figures = await kairosScenario(`lead_${lead}`, rate, target, single(redis), {
      ai: false,
      overrides: { SCHEDULER_DISPATCH_LEAD_MS: String(lead) },
    });
    report(
      `| ${lead} | ${ms(figures.lateness.p50)} | ${ms(figures.lateness.p99)} | ${ms(figures.lateness.max)} | ${figures.lateness.min >= 0 ? 'yes' : `no (${ms(figures.lateness.min)})`} |`,
    );
  }
  report('');
}
