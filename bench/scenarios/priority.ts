/**
 * BENCH_ONLY=priority (only when named), a diagnostic, never what `pnpm start` does: one set of services
 * at saturation, its executor's main thread alternated between the scheduling it starts with and
 * SCHED_FIFO (`chrt`, which needs CAP_SYS_NICE), BENCH_ROUNDS pairs of windows. At saturation that
 * thread is runnable nearly all of each second, yet on a core for only ≈ 70 % of it while the cores
 * idle ≈ 14 % (2026-11-28): it waits for the co-located processes it feeds. The raised windows say what
 * that wait costs; they are not a default, as a real-time thread at 90 % of a core starves the
 * machine's other work on it (docs/decisions/0025-one-executor-thread-per-process.md).
 */
import { execFileSync } from 'node:child_process';
import { ceiling } from '../baselines.js';
import { processesOf } from '../counters.js';
import { announce, insertEndpoints, setup, single, teardown, type Bench } from '../environment.js';
import { cpuPerExecution, inTurn, meanOf } from '../figures.js';
import { untilFlowing } from '../kairos-window.js';
import { coreUseFrom, cpuOf, sleep, startServices } from '../lib.js';
import { coreUseText, cpuLine, pct, pctAgainst, report, thousands } from '../report.js';
import { ROUNDS, SERVICES, WARMUP_MS, WINDOW_MS, sustainedLoad } from '../settings.js';

export async function run({ target, redis }: Bench): Promise<void> {
  const load = sustainedLoad((await ceiling(target)).rate);
  const env = await setup('priority');
  const services = startServices(SERVICES, env.env);
  const executorPid = services.children[SERVICES.indexOf('executor')]!.pid!;
  const schedule = (realtime: boolean) =>
    execFileSync('chrt', realtime ? ['-f', '-p', '1', String(executorPid)] : ['-o', '-p', '0', String(executorPid)]);
  report(
    `## The executor's main thread raised to SCHED_FIFO (a diagnostic; ${thousands(load)} endpoints at 1 s, defaults)`,
  );
  report('');
  try {
    await sleep(2000);
    await announce(env.prefix, redis, await insertEndpoints(env.db, load, target.url, false));
    await untilFlowing(target);
    await sleep(WARMUP_MS);
    const delivered: Record<'plain' | 'raised', number[]> = { plain: [], raised: [] };
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const realtime of inTurn(round - 1, false, true)) {
        schedule(realtime);
        await sleep(2000);
        await target.take();
        const processes = await processesOf(env, SERVICES, services, target);
        const cpuBefore = cpuOf(processes);
        const from = Date.now();
        const cores = coreUseFrom(executorPid);
        await sleep(WINDOW_MS);
        const coreUse = cores();
        const cpuAfter = cpuOf(processes);
        const arrivals = (await target.take()).arrivals.filter((at) => at >= from && at < from + WINDOW_MS).length;
        const perSecond = arrivals / (WINDOW_MS / 1000);
        delivered[realtime ? 'raised' : 'plain'].push(perSecond);
        const cpu = cpuPerExecution(cpuBefore, cpuAfter, Math.max(1, arrivals));
        report(
          `round ${round}, ${realtime ? 'SCHED_FIFO' : 'as started'}: ${perSecond.toFixed(0)}/s (${cpuLine(cpu)}; ` +
            `the executor's threads, ms per second: ${coreUseText(coreUse)})`,
        );
      }
    }
    const ratios = delivered.raised.map((raised, index) => raised / delivered.plain[index]!);
    report('');
    report(
      `Raised against as started, round by round: ${ratios.map(pct).join(', ')}; mean ${pctAgainst(meanOf(ratios))}.`,
    );
    report('');
  } catch (error) {
    report(`Not measured: ${(error as Error).message.split('\n')[0]} (chrt needs CAP_SYS_NICE).`);
    report('');
  } finally {
    await services.stop();
    await teardown(env, single(redis));
  }
}
