/**
 * `pnpm bench`: Kairos as a user gets it, each figure next to a baseline measured in the
 * same run, every process on its own. bench/README.md says what each scenario measures and why, lists
 * every knob and defines the benchmark's words; docs/benchmarks.md holds the figures with their dates.
 *
 * This entry point starts what every scenario shares (a private redis-server unless BENCH_REDIS_URL, the
 * target in its own process), prints the machine, then runs the scenarios BENCH_ONLY names (all but
 * cluster, ab and priority when it is unset), each from its module in bench/scenarios/, in the order
 * below. The output also goes to a git-ignored results-latest file in this folder.
 */
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { benchRedis, type Bench } from './environment.js';
import { PG_BASE, ROOT, dropTemplate, startRedis, startTarget } from './lib.js';
import { report, writeReport } from './report.js';
import * as ab from './scenarios/ab.js';
import * as api from './scenarios/api.js';
import * as change from './scenarios/change.js';
import * as cluster from './scenarios/cluster.js';
import * as concurrency from './scenarios/concurrency.js';
import * as lead from './scenarios/lead.js';
import * as outside from './scenarios/outside.js';
import * as priority from './scenarios/priority.js';
import * as roundTrips from './scenarios/rt.js';
import * as scale from './scenarios/scale.js';
import * as skeleton from './scenarios/skeleton.js';
import * as soak from './scenarios/soak.js';
import * as tuned from './scenarios/tuned.js';
import { QUICK, SERVICES, WARMUP_MS, WINDOW_MS, runs } from './settings.js';

/** The scenarios in the order they run, each under its BENCH_ONLY name. */
const SCENARIOS: [string, (bench: Bench) => Promise<void>][] = [
  ['outside', outside.run],
  // The outside view runs the reference shape beside each pair already; alone, for work on the gap.
  ['skeleton', (bench) => (runs('outside') ? Promise.resolve() : skeleton.run(bench))],
  ['rt', roundTrips.run],
  ['lead', lead.run],
  ['priority', priority.run],
  ['ab', ab.run],
  ['concurrency', concurrency.run],
  ['tuned', tuned.run],
  ['change', change.run],
  ['scale', scale.run],
  ['cluster', cluster.run],
  ['api', api.run],
  ['soak', soak.run],
];

async function main(): Promise<void> {
  const own = process.env.BENCH_REDIS_URL ? undefined : await startRedis();
  benchRedis.url = process.env.BENCH_REDIS_URL ?? own!.url;
  benchRedis.pid = own?.pid;
  const redis = new Redis(benchRedis.url);
  await redis.config('SET', 'hz', '100');
  const target = await startTarget();
  report(`# Kairos benchmark — ${new Date().toISOString()}`);
  report('');
  report(
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), Node ${process.version}, load average at start ${loadavg()[0]!.toFixed(1)}; ` +
      `Redis ${own ? 'a private redis-server' : benchRedis.url} (hz 100), PostgreSQL ${PG_BASE}. ` +
      'The machine is shared with other work: compare each figure with its baseline from the same run, not across runs.' +
      (QUICK ? ' QUICK mode.' : ''),
  );
  report(
    `Services as child processes, as \`pnpm start\` runs them (${SERVICES.join(', ')}; defaults: no concurrency override, no model configured); ` +
      `target: node:http keep-alive on 127.0.0.1 in its own process; windows of ${WINDOW_MS / 1000} s after ${WARMUP_MS / 1000} s of warm-up.`,
  );
  report('');
  try {
    for (const [name, run] of SCENARIOS) if (runs(name)) await run({ target, redis });
  } finally {
    target.stop();
    redis.disconnect();
    own?.stop();
    await dropTemplate();
  }
  writeReport(join(ROOT, 'bench/results-latest.md'));
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
