/**
 * Kairos from outside, one window: the real built services as child processes at `pnpm start`'s
 * defaults (or a scenario's overrides), endpoints at 1 s, the calls timed at the target, and what the
 * window cost each process, Redis and PostgreSQL per delivered execution.
 */
import { announce, insertEndpoints, setup, teardown, type BenchRedis } from './environment.js';
import { executionPhases, pgTransactions, processesOf, redisCalls, tableCounters } from './counters.js';
import { cpuPerExecution, perExecution, type KairosFigures } from './figures.js';
import {
  coreUseFrom,
  cpuOf,
  freePort,
  hostSpeedDuring,
  sleep,
  startPgCounter,
  startServices,
  summarize,
  wakeupsOfGroups,
  type Target,
} from './lib.js';
import { BENCH_RESPONSE_RULES } from './rule-shape.js';
import { WARMUP_MS, WINDOW_MS, servicesOf } from './settings.js';

/**
 * Kairos from outside: `endpoints` endpoints on a 1 s interval (so `endpoints` due per second), the
 * services as child processes, the calls timed at the target.
 */
export async function kairosScenario(
  label: string,
  endpoints: number,
  target: Target,
  redis: BenchRedis,
  options: {
    ai: boolean;
    overrides?: NodeJS.ProcessEnv;
    countPg?: boolean;
    prefix?: string;
    /** true: every endpoint carries bench/rule-shape.ts's response rules; false: none; absent: BENCH_RULES=1 decides. */
    rules?: boolean;
  },
): Promise<KairosFigures> {
  const counter = options.countPg ? await startPgCounter() : undefined;
  const env = await setup(label, options.overrides, options.prefix);
  if (counter) env.env.DATABASE_URL = `postgresql://postgres@127.0.0.1:${counter.port}/${env.name}`;
  // The executor's operations port, to read its slot phases (one executor: the port is per process).
  // BENCH_EXECUTORS in a scenario's overrides (BENCH_ONLY=ab) runs that many executor processes in it.
  const serviceNames = servicesOf(options.overrides?.BENCH_EXECUTORS);
  const executors = serviceNames.filter((name) => name.startsWith('executor')).length;
  const metricsPort = executors === 1 ? await freePort() : undefined;
  if (metricsPort !== undefined) env.env.EXECUTOR_HEALTH_PORT = String(metricsPort);
  const services = startServices(serviceNames, env.env);
  try {
    await sleep(2000);
    const rules = options.rules === undefined ? undefined : options.rules ? BENCH_RESPONSE_RULES : null;
    const ids = await insertEndpoints(env.db, endpoints, target.url, options.ai, rules);
    await announce(env.prefix, redis.connection, ids);
    await untilFlowing(target);
    await sleep(WARMUP_MS);
    await target.take();
    const callsBefore = await redisCalls(redis);
    const xactsBefore = await pgTransactions(env.db, env.name);
    const tablesBefore = await tableCounters(env.db);
    const processes = await processesOf(env, serviceNames, services, target);
    const phasesBefore = await executionPhases(metricsPort);
    const cpuBefore = cpuOf(processes);
    const wakeupsBefore = wakeupsOfGroups(processes);
    counter?.reset();
    const from = Date.now();
    const cores = coreUseFrom(services.children[serviceNames.indexOf('executor')]?.pid);
    const hostTaskUs = await hostSpeedDuring(WINDOW_MS);
    const coreUse = cores();
    const to = Date.now();
    const cpuAfter = cpuOf(processes);
    const wakeupsAfter = wakeupsOfGroups(processes);
    const phasesAfter = await executionPhases(metricsPort);
    const callsAfter = await redisCalls(redis);
    const pgCounts = counter ? { ...counter.counts } : undefined;
    await sleep(1500);
    const xactsAfter = await pgTransactions(env.db, env.name);
    const tablesAfter = await tableCounters(env.db);
    const seen = await target.take();
    const arrivalOf = new Map<string, number>();
    let delivered = 0;
    seen.runIds.forEach((runId, index) => {
      const arrival = seen.arrivals[index]!;
      if (arrival >= from && arrival < to) delivered += 1;
      if (!arrivalOf.has(runId)) arrivalOf.set(runId, arrival);
    });
    const { rows } = await env.db.pool.query<{ id: string; scheduledAt: Date }>(
      `SELECT id, "scheduledAt" FROM runs WHERE id = ANY($1::uuid[]) AND "scheduledAt" >= $2 AND "scheduledAt" < $3`,
      [[...arrivalOf.keys()].filter((id) => /^[0-9a-f-]{36}$/.test(id)), new Date(from), new Date(to - 1000)],
    );
    const executions = Math.max(1, delivered);
    const recorded = Math.max(1, tablesAfter.runsInserted - tablesBefore.runsInserted);
    return {
      lateness: summarize(rows.map((row) => arrivalOf.get(row.id)! - row.scheduledAt.getTime())),
      delivered: delivered / (WINDOW_MS / 1000),
      redisCommands: (callsAfter.total - callsBefore.total) / executions,
      redisScripts: (callsAfter.scripts - callsBefore.scripts) / executions,
      redisByCommand: Object.fromEntries(
        Object.entries(callsAfter.byCommand).map(([name, calls]) => [
          name,
          (calls - (callsBefore.byCommand[name] ?? 0)) / executions,
        ]),
      ),
      redisCommandsPerNode: callsAfter.perNode.map(
        (calls, index) => (calls - callsBefore.perNode[index]!) / executions,
      ),
      // Read 1.5 s after the window (the counters lag): per run recorded in the same interval.
      pgTransactions: (xactsAfter - xactsBefore) / recorded,
      endpointUpdates: {
        perExecution: (tablesAfter.updates - tablesBefore.updates) / recorded,
        hot: (tablesAfter.hot - tablesBefore.hot) / Math.max(1, tablesAfter.updates - tablesBefore.updates),
      },
      walBytesPerRun: (tablesAfter.walBytes - tablesBefore.walBytes) / recorded,
      cpu: cpuPerExecution(cpuBefore, cpuAfter, executions),
      wakeups: perExecution(wakeupsBefore, wakeupsAfter, executions),
      slotPhases: Object.fromEntries(
        Object.entries(phasesAfter.phases).map(([phase, { sum, count }]) => {
          const before = phasesBefore.phases[phase] ?? { sum: 0, count: 0 };
          return [phase, (1000 * (sum - before.sum)) / Math.max(1, count - before.count)];
        }),
      ),
      slots: phasesAfter.slots,
      hostTaskUs,
      coreUse,
      ...(pgCounts
        ? {
            pgStatements: ((pgCounts.Q ?? 0) + (pgCounts.E ?? 0)) / executions,
            pgRoundTrips: ((pgCounts.Q ?? 0) + (pgCounts.S ?? 0)) / executions,
          }
        : {}),
    };
  } finally {
    await services.stop();
    await teardown(env, redis);
    counter?.stop();
  }
}

/**
 * Waits (at most 90 s) until calls arrive at the target in two seconds running: on a loaded machine the
 * services take seconds to start, and the warm-up starts from there.
 */
export async function untilFlowing(target: Target): Promise<void> {
  let running = 0;
  for (let second = 0; second < 90 && running < 2; second += 1) {
    await sleep(1000);
    running = (await target.take()).runIds.length > 0 ? running + 1 : 0;
  }
  if (running < 2) throw new Error('no call reached the target within 90 s');
}
