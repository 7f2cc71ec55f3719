/**
 * A rolling upgrade under load (docs/operations/upgrades.md): the previous release, built from this
 * repository's history, runs on a private PostgreSQL cluster and Redis (stores.ts) with two
 * schedulers and two executors, 30 endpoints every second against the local target. Then, as a
 * rolling update does it: the new release's migrations are applied while the old processes run;
 * each scheduler and each executor is replaced one at a time (the new process is ready before the
 * old one gets SIGTERM, so old and new run side by side); then the api and the planner.
 * Over the whole window: 0 slots lost, 0 recorded twice, 0 delivered twice; lateness printed.
 *
 * The previous release: KAIROS_UPGRADE_FROM (a commit), by default the first parent of the latest
 * first-parent commit that changed prisma/migrations, so the upgrade always crosses a migration.
 * Its tree comes from `git archive`, installed with `pnpm install --frozen-lockfile --offline` from
 * the local store (about 30 s) and run from its sources, as this one is. KAIROS_UPGRADE_FROM=none
 * skips the test (a shallow clone has no history to build from).
 * Runs alone with:
 *   NODE_OPTIONS=--experimental-vm-modules pnpm exec jest test/fault/upgrade.test.ts
 */
import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { createLoad, startTarget, type Load, type Target } from './load.js';
import { countWindow, measurementPool, waitUntilEveryEndpointRan } from './measure.js';
import { freePort, sleep } from './processes.js';
import { createAccountWithCli, migrate, ROOT, startService, waitReady, type ServiceProcess } from './services.js';
import { startPostgres, startRedis, type PrivatePostgres, type PrivateRedis } from './stores.js';
import { MASTER_KEY_HEX, type ServiceName } from './system.js';

const ENDPOINTS = 30;
/** Load between two steps of the rollout: each step is seen by about three slots of every endpoint. */
const BETWEEN_STEPS_MS = 3000;
const SETTLE_MS = 3000;
const RECOVERY_BOUND_MS = 30_000;
const FROM = process.env.KAIROS_UPGRADE_FROM;

function previousRelease(): string {
  if (FROM)
    return execFileSync('git', ['rev-parse', '--verify', `${FROM}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const lastMigrationChange = execFileSync(
    'git',
    ['log', '--first-parent', '--format=%H', '-1', '--', 'prisma/migrations'],
    { cwd: ROOT, encoding: 'utf8' },
  ).trim();
  return execFileSync('git', ['rev-parse', '--verify', `${lastMigrationChange}^1`], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();
}

/** The previous release's tree in a temp dir: `git archive` of the commit, installed offline. */
function buildPrevious(commit: string, dir: string): void {
  execSync(`git archive ${commit} | tar -x -C ${JSON.stringify(dir)}`, { cwd: ROOT, timeout: 60_000 });
  execFileSync('pnpm', ['install', '--frozen-lockfile', '--offline'], {
    cwd: dir,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 300_000,
  });
}

let postgres: PrivatePostgres;
let redis: PrivateRedis;
let target: Target;
let previousDir: string;
let pool: pg.Pool | undefined;
const everyProcess: ServiceProcess[] = [];

afterAll(async () => {
  await Promise.all(everyProcess.map((p) => p.stop('SIGKILL')));
  await pool?.end().catch(() => undefined);
  await target?.stop();
  await redis?.stop();
  postgres?.stop();
  if (previousDir) rmSync(previousDir, { recursive: true, force: true });
}, 120_000);

(FROM === 'none' ? it.skip : it)(
  'replaces every process of the previous release under load, losing and doubling nothing',
  async () => {
    const commit = previousRelease();
    const buildStartMs = Date.now();
    previousDir = mkdtempSync(join(tmpdir(), 'kairos-previous-'));
    buildPrevious(commit, previousDir);
    const buildMs = Date.now() - buildStartMs;

    postgres = await startPostgres();
    redis = await startRedis();
    target = await startTarget();
    const databaseUrl = `${postgres.baseUrl}/kairos_upgrade`;
    const start = async (root: string, release: string, service: ServiceName) => {
      const started = startService({
        root,
        release,
        service,
        port: await freePort(),
        databaseUrl,
        redisUrl: redis.url,
      });
      everyProcess.push(started);
      return started;
    };

    migrate(previousDir, databaseUrl);
    const old: ServiceProcess[] = [];
    for (const service of ['api', 'scheduler', 'scheduler', 'executor', 'executor', 'planner'] as const) {
      old.push(await start(previousDir, 'previous', service));
    }
    await waitReady(old, 180_000);
    const load: Load = await createLoad({
      databaseUrl,
      masterKeyHex: MASTER_KEY_HEX,
      apiPort: old[0]!.port,
      targetPort: target.port,
      count: ENDPOINTS,
      account: createAccountWithCli(previousDir, databaseUrl, redis.url),
    });
    pool = measurementPool(databaseUrl);
    const steady = await waitUntilEveryEndpointRan(pool, load, Date.now() + 2000, Date.now() + 60_000);
    if (steady.atMs === undefined) throw new Error(`${steady.missing} endpoints never ran on the previous release`);

    // The rollout. Each step: the new process ready, then the old one stopped gracefully.
    const fromMs = Date.now();
    const steps: string[] = [];
    const migrateStartMs = Date.now();
    migrate(ROOT, databaseUrl);
    steps.push(`new migrations applied under the previous release: ${Date.now() - migrateStartMs} ms`);
    await sleep(BETWEEN_STEPS_MS);
    // Schedulers and executors first, one at a time; then the api and the planner.
    for (const replaced of [old[1]!, old[3]!, old[2]!, old[4]!, old[0]!, old[5]!]) {
      const stepStartMs = Date.now();
      const next = await start(ROOT, 'new', replaced.service);
      await waitReady([next], 180_000);
      await replaced.stop('SIGTERM');
      steps.push(`${replaced.service} replaced: ${Date.now() - stepStartMs} ms (old one drained and exited)`);
      await sleep(BETWEEN_STEPS_MS);
    }
    const rolledAtMs = Date.now();
    const recovered = await waitUntilEveryEndpointRan(pool, load, rolledAtMs, rolledAtMs + RECOVERY_BOUND_MS);
    const toMs = Date.now();
    await sleep(SETTLE_MS);

    const counts = await countWindow(pool, load, await target.arrivals(), fromMs, toMs);
    const { rows: lateness } = await pool.query<{ runs: number; p50: number; p99: number; max: number; gap: number }>(
      `WITH w AS (
         SELECT "endpointId", "scheduledAt", extract(epoch FROM "startedAt" - "scheduledAt") * 1000 AS late
           FROM runs WHERE "accountId" = $1 AND source <> 'test'
            AND "startedAt" BETWEEN to_timestamp($2::double precision / 1000) AND to_timestamp($3::double precision / 1000)
       ), gaps AS (
         SELECT extract(epoch FROM "scheduledAt" - lag("scheduledAt") OVER (PARTITION BY "endpointId" ORDER BY "scheduledAt")) * 1000 AS gap FROM w
       )
       SELECT (SELECT count(*)::int FROM w) AS runs,
              (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY late))::int FROM w) AS p50,
              (SELECT round(percentile_cont(0.99) WITHIN GROUP (ORDER BY late))::int FROM w) AS p99,
              (SELECT round(max(late))::int FROM w) AS max,
              (SELECT round(max(gap))::int FROM gaps) AS gap`,
      [load.accountId, fromMs, toMs],
    );
    const late = lateness[0]!;
    process.stdout.write(
      [
        '',
        `Rolling upgrade under load (${ENDPOINTS} endpoints every 1 s; previous release ${commit.slice(0, 10)}, built offline in ${(buildMs / 1000).toFixed(1)} s)`,
        ...steps.map((step) => `  ${step}`),
        '| window | runs | slots lost | recorded twice | delivered twice | lateness p50 / p99 / max | longest gap between slots |',
        '| --- | --- | --- | --- | --- | --- | --- |',
        `| ${((toMs - fromMs) / 1000).toFixed(0)} s | ${late.runs} | ${counts.lost + recovered.missing} | ${counts.recordedTwice} | ` +
          `${counts.executedTwice + counts.executedTwiceNewId} | ${late.p50} / ${late.p99} / ${late.max} ms | ${late.gap} ms |`,
        '',
      ].join('\n') + '\n',
    );
    expect({
      lost: counts.lost,
      notRunAgain: recovered.missing,
      recordedTwice: counts.recordedTwice,
      executedTwice: counts.executedTwice,
      executedTwiceNewId: counts.executedTwiceNewId,
      evidence: counts.evidence.slice(0, 10),
    }).toEqual({ lost: 0, notRunAgain: 0, recordedTwice: 0, executedTwice: 0, executedTwiceNewId: 0, evidence: [] });
  },
  900_000,
);
