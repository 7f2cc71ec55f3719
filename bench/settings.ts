/**
 * The benchmark's knobs that more than one scenario reads (bench/README.md lists every knob): which
 * scenarios run, the windows' length, the sustained load, and the services `pnpm start` runs. A knob
 * that one scenario alone reads is read in that scenario's module (bench/scenarios/).
 */

/** BENCH_QUICK=1: shorter windows and fewer pairs, for a smoke run; its figures are not comparable. */
export const QUICK = process.env.BENCH_QUICK === '1';
const ONLY = process.env.BENCH_ONLY?.split(',');
/** Scenarios run only when named: the cluster's, and the diagnostics and A/B windows (BENCH_ONLY=priority, ab). */
const ONLY_WHEN_NAMED = ['cluster', 'priority', 'ab', 'api', 'soak'];
/** Whether BENCH_ONLY (or its absence: every scenario but ONLY_WHEN_NAMED) asks for scenario `name`. */
export const runs = (name: string) => (!ONLY && !ONLY_WHEN_NAMED.includes(name)) || (ONLY?.includes(name) ?? false);
/** The services' KAIROS_MASTER_KEY (a throw-away key: the benchmark's databases are dropped). */
export const MASTER_KEY_HEX = 'a'.repeat(64);
/** A measurement window: the calls that arrive in it are counted. */
export const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? (QUICK ? 4000 : 10_000));
/** Warm-up before each window, once calls flow (sockets, JIT, pools, the first batches). */
export const WARMUP_MS = QUICK ? 3000 : 5000;
/** The sustained scenarios' least endpoints at 1 s (sustainedLoad raises it on a fast host). */
export const SUSTAINED = Number(process.env.BENCH_SUSTAINED ?? 3000);
/**
 * The sustained scenario's endpoints (at 1 s each) beside a ceiling of `ceilingRate` req/s: at least
 * SUSTAINED, and at least the ceiling rounded up to 500, so the load offered is more than Kairos can
 * deliver on any host and delivered/s is its capacity. On a host where got's ceiling was 8,395 req/s,
 * 3,000 endpoints delivered 3,031/s, the whole load offered: 36 % of the ceiling was the scenario's
 * cap, not Kairos's.
 */
export const sustainedLoad = (ceilingRate: number) => Math.max(SUSTAINED, Math.ceil(ceilingRate / 500) * 500);
/**
 * BENCH_RULES: `1` gives every endpoint the benchmark creates the response rules of bench/rule-shape.ts
 * (three successWhen conditions, two rules); `both`: the outside view measures Kairos with and without
 * them in the same run (a lateness row per rate and a window per pair with them), the rows side by side.
 */
export const RULES = process.env.BENCH_RULES === '1' ? 'all' : process.env.BENCH_RULES === 'both' ? 'both' : 'none';
/** Sustained AI off / AI on windows, alternated (BENCH_PAIRS). */
export const PAIRS = Number(process.env.BENCH_PAIRS ?? (QUICK ? 1 : 2));
/**
 * BENCH_ROUNDS: how many times BENCH_ONLY=skeleton runs its steps (forward and backward in turn) and
 * BENCH_ONLY=ab and priority their two settings (in turn).
 */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
/** `pnpm start` runs these (the api is idle in these scenarios and left out). */
export const servicesOf = (executors = process.env.BENCH_EXECUTORS) => [
  'scheduler',
  'executor',
  'planner',
  // BENCH_EXECUTORS=2…: more executor processes (not the defaults: label such a run as tuned).
  ...Array.from({ length: Number(executors ?? 1) - 1 }, (_, index) => `executor#${index + 2}`),
];
export const SERVICES = servicesOf();
/** The tuned runs' settings (BENCH_ONLY=tuned): not the defaults, the first benchmark's (docs/benchmarks.md). */
export const TUNED = { EXECUTOR_CONCURRENCY: '200', SCHEDULER_CONCURRENCY: '100' };
