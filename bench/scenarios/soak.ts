/**
 * BENCH_ONLY=soak (only when named; not CI): Kairos left running. BENCH_SOAK_RATE endpoints at 1 s
 * (default 300 executions/s) for BENCH_SOAK_MINUTES (default 30), AI scheduling on with a model: the
 * fake model of the tests on 127.0.0.1 (test/fake-model.ts), which ends every analysis with one
 * submit_analysis call. Every BENCH_SOAK_SAMPLE_SECONDS (default 60) it samples each service's RSS
 * (/proc/<pid>/status), Redis's used_memory, the database's size and the lateness of the calls that
 * arrived since the last sample (arrival at the target − the run's planned time). Then it prints the
 * samples, each process's memory slope after the warm-up (least squares over the samples after
 * BENCH_SOAK_WARMUP_MINUTES, default 5; MiB per hour) against a bound of 10 MiB/h, and lateness per
 * window of BENCH_SOAK_WINDOW_MINUTES (default 5), which should stay flat.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { startFakeModel, submitAnalysis } from '../../test/fake-model.js';
import { announce, insertEndpoints, setup, single, teardown, type Bench } from '../environment.js';
import { freePort, percentile, sleep, startServices } from '../lib.js';
import { report, thousands } from '../report.js';
import { untilFlowing } from '../kairos-window.js';

const RATE = Number(process.env.BENCH_SOAK_RATE ?? 300);
const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
const SAMPLE_MS = Number(process.env.BENCH_SOAK_SAMPLE_SECONDS ?? 60) * 1000;
const WARMUP_MINUTES = Number(process.env.BENCH_SOAK_WARMUP_MINUTES ?? 5);
const WINDOW_MINUTES = Number(process.env.BENCH_SOAK_WINDOW_MINUTES ?? 5);
/** The memory bound a service may grow by after the warm-up. */
const SLOPE_BOUND_MIB_PER_HOUR = 10;
const SERVICES = ['api', 'scheduler', 'executor', 'planner'];

interface Sample {
  minute: number;
  rssMiB: Record<string, number>;
  redisMiB: number;
  pgMiB: number;
  delivered: number;
  lateness: number[];
}

const rssMiB = (pid: number | undefined): number => {
  if (pid === undefined) return Number.NaN;
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
};

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const num = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0);
  const den = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  return num / den;
}

export async function run({ target, redis }: Bench): Promise<void> {
  const model = await startFakeModel();
  model.play([submitAnalysis('steady: keep the baseline', 'high', 30)]);
  const env = await setup('soak', {
    ANTHROPIC_API_KEY: model.apiKey,
    ANTHROPIC_BASE_URL: model.baseURL,
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    KAIROS_WEB_DIR: '',
  });
  const services = startServices(SERVICES, env.env);
  const pidOf = (name: string) => services.children[SERVICES.indexOf(name)]?.pid;
  const samples: Sample[] = [];
  try {
    await sleep(2000);
    const ids = await insertEndpoints(env.db, RATE, target.url, true, null);
    await announce(env.prefix, redis, ids);
    await untilFlowing(target);
    await target.take();
    const startedAt = performance.now();
    const samplesWanted = Math.ceil((MINUTES * 60_000) / SAMPLE_MS);
    for (let index = 1; index <= samplesWanted; index += 1) {
      await sleep(Math.max(0, startedAt + index * SAMPLE_MS - performance.now()));
      const seen = await target.take();
      const arrivalOf = new Map<string, number>();
      seen.runIds.forEach((runId, i) => {
        if (!arrivalOf.has(runId)) arrivalOf.set(runId, seen.arrivals[i]!);
      });
      const { rows } = await env.db.pool.query<{ id: string; scheduledAt: Date }>(
        `SELECT id, "scheduledAt" FROM runs WHERE id = ANY($1::uuid[])`,
        [[...arrivalOf.keys()].filter((id) => /^[0-9a-f-]{36}$/.test(id))],
      );
      const memory = await redis.info('memory');
      const { rows: size } = await env.db.pool.query<{ bytes: string }>(`SELECT pg_database_size($1) AS bytes`, [
        env.name,
      ]);
      samples.push({
        minute: (index * SAMPLE_MS) / 60_000,
        rssMiB: Object.fromEntries(SERVICES.map((name) => [name, rssMiB(pidOf(name))])),
        redisMiB: Number(/^used_memory:(\d+)/m.exec(memory)?.[1] ?? Number.NaN) / 2 ** 20,
        pgMiB: Number(size[0]!.bytes) / 2 ** 20,
        delivered: seen.runIds.length / (SAMPLE_MS / 1000),
        lateness: rows.map((row) => arrivalOf.get(row.id)! - row.scheduledAt.getTime()).sort((a, b) => a - b),
      });
    }
    const { rows: sessions } = await env.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM analysis_sessions`,
    );
    reportSoak(samples, sessions[0]!.n, model.requests.length);
  } finally {
    await services.stop();
    await teardown(env, single(redis));
    await model.close();
  }
}

function reportSoak(samples: Sample[], sessions: number, modelCalls: number): void {
  const p = (sorted: number[], q: number) => (sorted.length ? percentile(sorted, q).toFixed(0) : '—');
  report(
    `## Soak: ${RATE} endpoints at 1 s for ${MINUTES} min, AI scheduling on with the fake model (${thousands(sessions)} analysis sessions, ${thousands(modelCalls)} model calls)`,
  );
  report('');
  report(
    `| minute | delivered/s | lateness p50 / p99 ms | ${SERVICES.map((name) => `${name} RSS MiB`).join(' | ')} | Redis MiB | PG MiB |`,
  );
  report(`|---|---|---|${SERVICES.map(() => '---').join('|')}|---|---|`);
  for (const sample of samples) {
    report(
      `| ${sample.minute.toFixed(1)} | ${sample.delivered.toFixed(0)} | ${p(sample.lateness, 50)} / ${p(sample.lateness, 99)} | ` +
        `${SERVICES.map((name) => sample.rssMiB[name]!.toFixed(1)).join(' | ')} | ${sample.redisMiB.toFixed(1)} | ${sample.pgMiB.toFixed(1)} |`,
    );
  }
  report('');
  const after = samples.filter((sample) => sample.minute > WARMUP_MINUTES);
  const slopes = [
    ...SERVICES.map((name) => [name, slope(after.map((s) => [s.minute / 60, s.rssMiB[name]!]))] as const),
    ['Redis', slope(after.map((s) => [s.minute / 60, s.redisMiB]))] as const,
  ];
  const grew = slopes.filter(([name, value]) => name !== 'Redis' && value > SLOPE_BOUND_MIB_PER_HOUR);
  report(
    `Memory slope after ${WARMUP_MINUTES} min of warm-up (least squares over ${after.length} samples, MiB per hour): ` +
      `${slopes.map(([name, value]) => `${name} ${Number.isNaN(value) ? '—' : value.toFixed(1)}`).join(', ')}; ` +
      `bound ${SLOPE_BOUND_MIB_PER_HOUR} MiB/h per service: ${after.length < 2 ? 'too short to tell' : grew.length ? `**missed** (${grew.map(([name]) => name).join(', ')})` : 'met'}. ` +
      `PostgreSQL grows with the runs kept (${thousands(Math.round(samples.at(-1)!.pgMiB - samples[0]!.pgMiB))} MiB over the run; retention bounds it).`,
  );
  const windows = new Map<number, number[]>();
  for (const sample of samples) {
    const window = Math.floor((sample.minute - 1e-9) / WINDOW_MINUTES);
    windows.set(window, [...(windows.get(window) ?? []), ...sample.lateness]);
  }
  report(
    `Lateness per ${WINDOW_MINUTES}-minute window, p50 / p99 ms: ` +
      [...windows]
        .map(([window, values]) => {
          const sorted = values.sort((a, b) => a - b);
          return `${window * WINDOW_MINUTES}–${(window + 1) * WINDOW_MINUTES} min ${p(sorted, 50)} / ${p(sorted, 99)}`;
        })
        .join('; '),
  );
  report('');
}
