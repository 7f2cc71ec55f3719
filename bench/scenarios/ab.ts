/**
 * BENCH_ONLY=ab (only when named): two settings of the services at saturation (or at BENCH_AB_LOAD
 * endpoints at 1 s, a fixed rate below it), alternated A B, then B A, BENCH_ROUNDS times: one 10 s
 * window moved by up to 20 % on this host with the same code, so a change is judged on rounds, each A
 * beside its B. BENCH_AB_A / BENCH_AB_B: `NAME=value` overrides of the services' environment,
 * `;`-separated, and three of the benchmark's own: BENCH_NODE_ARGS (Node's and V8's flags for every
 * service; NODE_OPTIONS refuses V8's heap flags) or BENCH_NODE_ARGS_<SERVICE> for one (lib.ts
 * startServices), BENCH_EXECUTORS, BENCH_ROOT (another checkout's build) and BENCH_RULES=1 (every
 * endpoint of that variant carries bench/rule-shape.ts's response rules). Not the defaults when a
 * service's setting is overridden: label such a run as tuned.
 */
import { ceiling } from '../baselines.js';
import { single, type Bench } from '../environment.js';
import { inTurn, meanOf } from '../figures.js';
import { kairosScenario } from '../kairos-window.js';
import { coreUseText, cpuLine, ms, pct, pctAgainst, report, thousands, wakeupLine } from '../report.js';
import { ROUNDS, sustainedLoad } from '../settings.js';

export async function run({ target, redis }: Bench): Promise<void> {
  const settingsOf = (text: string | undefined): NodeJS.ProcessEnv =>
    Object.fromEntries(
      (text ?? '')
        .split(';')
        .filter(Boolean)
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    );
  const variants = { A: settingsOf(process.env.BENCH_AB_A), B: settingsOf(process.env.BENCH_AB_B) };
  // BENCH_AB_LOAD: endpoints at 1 s (a fixed rate below saturation) instead of saturation.
  const load = Number(process.env.BENCH_AB_LOAD ?? sustainedLoad((await ceiling(target)).rate));
  report(
    `## A/B at ${process.env.BENCH_AB_LOAD ? 'a fixed rate' : 'saturation'} (${thousands(load)} endpoints at 1 s; A ${JSON.stringify(variants.A)}, B ${JSON.stringify(variants.B)})`,
  );
  report('');
  const delivered: Record<'A' | 'B', number[]> = { A: [], B: [] };
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const name of inTurn(round - 1, 'A' as const, 'B' as const)) {
      const { BENCH_RULES: rules, ...overrides } = variants[name];
      const figures = await kairosScenario(`ab_${name.toLowerCase()}`, load, target, single(redis), {
        ai: false,
        ...(rules === undefined ? {} : { rules: rules === '1' }),
        overrides,
      });
      delivered[name].push(figures.delivered);
      report(
        `round ${round} ${name}: ${figures.delivered.toFixed(0)}/s, lateness p50 / p99 ${ms(figures.lateness.p50)} / ${ms(figures.lateness.p99)} ms, ` +
          `per recorded run ${figures.endpointUpdates.perExecution.toFixed(2)} endpoint-row writes (${pct(figures.endpointUpdates.hot)} HOT), ` +
          `${thousands(Math.round(figures.walBytesPerRun))} WAL bytes ` +
          `(${cpuLine(figures.cpu)}; host ${figures.hostTaskUs} µs; ` +
          `context switches / read and write calls per execution: ${wakeupLine(figures.wakeups)}; ` +
          `slot phases ms ${Object.entries(figures.slotPhases)
            .map(([phase, value]) => `${phase} ${value.toFixed(1)}`)
            .join(', ')}; ` +
          `the executor's threads, ms per second: ${coreUseText(figures.coreUse)})`,
      );
    }
  }
  const ratios = delivered.B.map((b, index) => b / delivered.A[index]!);
  report('');
  report(
    `B against A, round by round: ${ratios.map(pct).join(', ')}; mean ${pctAgainst(meanOf(ratios))} ` +
      `(A ${meanOf(delivered.A).toFixed(0)}/s, B ${meanOf(delivered.B).toFixed(0)}/s)`,
  );
  report('');
}
