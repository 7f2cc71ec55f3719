/**
 * BENCH_ONLY=skeleton (when the outside view does not run, which runs the reference shape beside each
 * pair): for work on the gap between the reference shape and Kairos. got's ceiling and the floor, then
 * each row at saturation (or BENCH_SKELETON_LOAD endpoints at 1 s): the reference shape
 * (bench/skeleton.ts) without and with its stored plan, with its calls in a worker thread, then with
 * Kairos's own parts added one step at a time (SKELETON_KAIROS), and Kairos itself. What is left
 * between the last step and Kairos is services/executor/src/queue-workers.ts around executePlannedRun.
 * One 10 s window of a row moved by up to 20 % on this host with the same code, so BENCH_ROUNDS runs
 * every row that many times, forward in odd rounds and backward in even ones, each round numbered.
 * With BENCH_CPU_PROF it sets executors' main threads side by side by what ran them.
 */
import { ceiling, floorScenario, skeletonExecutorProfile, skeletonScenario } from '../baselines.js';
import { reportExecutorCosts } from '../cpu-report.js';
import { single, type Bench } from '../environment.js';
import type { BaselineFigures, KairosFigures } from '../figures.js';
import { kairosScenario } from '../kairos-window.js';
import { cpuLine, report, rowText, wakeupLine } from '../report.js';
import { ROUNDS, sustainedLoad } from '../settings.js';

/** Each row: its words after "the reference shape", and what picks it (null: Kairos itself). */
const ROWS = [
  ['', { plan: false }],
  [', planned run stored', { plan: true }],
  [', planned run stored, calls in a worker thread', { plan: true, callThread: true }],
  [", planned run stored, Kairos's call (signed, services/executor/src/http)", { plan: true, kairos: 'call' }],
  [
    ", planned run stored, Kairos's call, admission and recorder (skip rules, running lock, quota, stash)",
    { plan: true, kairos: 'call,admission' },
  ],
  [
    ", planned run stored, all three run by Kairos's executePlannedRun (call slots, retries' entry, phase metrics)",
    { plan: true, kairos: 'call,admission,execute' },
  ],
  ['Kairos, AI off', null],
] as const;

export async function run({ target, redis }: Bench): Promise<void> {
  const raw = await ceiling(target);
  // BENCH_SKELETON_LOAD: endpoints at 1 s for every row instead of saturation (CPU per execution at one rate).
  const load = Number(process.env.BENCH_SKELETON_LOAD ?? sustainedLoad(raw.rate));
  const floor = await floorScenario(2 * load, target, redis);
  report(
    `got's ceiling ${raw.rate.toFixed(0)} req/s (context switches / read and write calls per request: ${wakeupLine(raw.wakeups)}); ` +
      `the floor ${floor.delivered.toFixed(0)}/s (${cpuLine(floor.cpu)}; ${wakeupLine(floor.wakeups)})`,
  );
  let planned: BaselineFigures | undefined;
  let kairos: KairosFigures | undefined;
  const steps = new Map<string, BaselineFigures>();
  for (let round = 1; round <= ROUNDS; round += 1) {
    const label = ROUNDS > 1 ? `round ${round}: ` : '';
    // Backward in even rounds, so that a step is not always run just after the step it is compared
    // with (a row may pay for the writes of the one before it still being flushed and vacuumed). In four
    // rounds executePlannedRun's step read 87–94 % of the admission step either way round, so the order
    // was not that step's cost.
    for (const [variant, options] of round % 2 === 1 ? ROWS : [...ROWS].reverse()) {
      if (options === null) {
        kairos = await kairosScenario('sustained_off', load, target, single(redis), { ai: false });
        report(`${label}${variant}: ${rowText(kairos, raw.rate)}`);
        continue;
      }
      const figures = await skeletonScenario(load, target, redis, options);
      if (options.plan && !('callThread' in options) && !('kairos' in options)) planned = figures;
      if ('kairos' in options) steps.set(options.kairos, figures);
      report(`${label}the reference shape${variant}: ${rowText(figures, raw.rate)}`);
    }
  }
  report('');
  const dir = process.env.BENCH_CPU_PROF;
  if (dir) reportProfiles(dir, planned, kairos, steps);
}

/**
 * Kairos's executor beside the reference shape's with its stored plan, and the step that no single
 * function explained (executePlannedRun's own CPU ≈ 3 µs per execution, the step ≈ 10 %) beside the one
 * before it. A profile is written per process and each round's overwrites the one before: the figures
 * it is cut to and divided by are the last round's too.
 */
function reportProfiles(
  dir: string,
  planned: BaselineFigures | undefined,
  kairos: KairosFigures | undefined,
  steps: Map<string, BaselineFigures>,
): void {
  if (planned && kairos) {
    reportExecutorCosts(
      dir,
      { profile: 'executor', window: kairos, label: "Kairos's executor" },
      { profile: skeletonExecutorProfile({ plan: true }), window: planned, label: "the shape's" },
    );
  }
  const admitted = steps.get('call,admission');
  const executed = steps.get('call,admission,execute');
  if (admitted && executed) {
    reportExecutorCosts(
      dir,
      {
        profile: skeletonExecutorProfile({ plan: true, kairos: 'call,admission,execute' }),
        window: executed,
        label: 'executePlannedRun',
      },
      {
        profile: skeletonExecutorProfile({ plan: true, kairos: 'call,admission' }),
        window: admitted,
        label: 'admission and recorder',
      },
    );
  }
}
