/**
 * BENCH_ONLY=api (only when named): the api alone (its built process, as `pnpm start` runs it, no
 * scheduler or executor) under a mixed load from many keys of several accounts, at rising concurrency.
 * Each account has BENCH_API_KEYS keys, a job of 20 endpoints with 200 runs each; requests pick an
 * account and a key at random and one of the route classes below by weight. Two accounts are
 * enterprise with their rate limit raised out of the way (their figures are the api's own), the
 * third is pro at its tier's limit (300 a minute, burst 50): its excess must be 429 with Retry-After.
 * Per concurrency level (BENCH_API_CONCURRENCY, held for BENCH_API_SECONDS each): requests/s, p50 and
 * p99 per route class, 5xx (target 0), 429s and any 429 without Retry-After (target 0).
 */
import { performance } from 'node:perf_hooks';
import { createAccount } from '@kairos/db/system';
import { setup, single, teardown, type Bench } from '../environment.js';
import { freePort, percentile, sleep, startServices } from '../lib.js';
import { report, thousands } from '../report.js';
import { MASTER_KEY_HEX } from '../settings.js';

const LEVELS = (process.env.BENCH_API_CONCURRENCY ?? '10,50,100').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 10);
const KEYS = Number(process.env.BENCH_API_KEYS ?? 4);
const ENDPOINTS_PER_ACCOUNT = 20;
const RUNS_PER_ENDPOINT = 200;
/** Requests per level at most, whatever the duration (a bound on every loop). */
const MAX_REQUESTS_PER_LEVEL = 200_000;

interface Account {
  id: string;
  tier: 'enterprise' | 'pro';
  keys: string[];
  jobId: string;
  endpointIds: string[];
}

type RouteClass = 'list' | 'get' | 'create' | 'update' | 'runs page' | 'dashboard';

/** The mix: weight of each route class (sums to 100) and the request it makes for an account. */
const MIX: [RouteClass, number, (a: Account, n: number) => { method: string; path: string; body?: unknown }][] = [
  ['list', 20, (a, n) => ({ method: 'GET', path: n % 2 ? '/api/jobs' : `/api/jobs/${a.jobId}/endpoints?limit=50` })],
  ['get', 25, (a, n) => ({ method: 'GET', path: `/api/endpoints/${a.endpointIds[n % a.endpointIds.length]}` })],
  [
    'create',
    5,
    (a, n) => ({
      method: 'POST',
      path: `/api/jobs/${a.jobId}/endpoints`,
      body: { name: `created ${n}`, url: 'http://127.0.0.1:9/created', method: 'GET', baselineIntervalMs: 3_600_000 },
    }),
  ],
  [
    'update',
    15,
    (a, n) => ({
      method: 'PATCH',
      path: `/api/jobs/${a.jobId}/endpoints/${a.endpointIds[n % a.endpointIds.length]}`,
      body: { description: `updated ${n}` },
    }),
  ],
  [
    'runs page',
    25,
    (a, n) => ({ method: 'GET', path: `/api/endpoints/${a.endpointIds[n % a.endpointIds.length]}/runs?limit=50` }),
  ],
  ['dashboard', 10, () => ({ method: 'GET', path: '/api/dashboard' })],
];

function pick(random: number): (typeof MIX)[number] {
  let left = random * 100;
  for (const entry of MIX) {
    left -= entry[1];
    if (left < 0) return entry;
  }
  return MIX[0]!;
}

export async function run({ redis }: Bench): Promise<void> {
  const env = await setup('api');
  const port = await freePort();
  const services = startServices(['api'], { ...env.env, PORT: String(port), HOST: '127.0.0.1', KAIROS_WEB_DIR: '' });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let attempt = 0; attempt < 240; attempt += 1) {
      const ready = await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      await sleep(500);
    }
    const accounts = await seed(env, base);
    report(
      `## The api alone under a mixed load (${accounts.length} accounts × ${KEYS} keys; 2 enterprise with the rate limit raised, 1 pro at its limit)`,
    );
    report('');
    report(
      `Mix: ${MIX.map(([name, weight]) => `${name} ${weight} %`).join(', ')}; each account ${ENDPOINTS_PER_ACCOUNT} endpoints with ${RUNS_PER_ENDPOINT} runs each; ${SECONDS} s per level.`,
    );
    report('');
    report(
      '| in flight | requests/s | 5xx | 429 (without Retry-After) | other 4xx | ' +
        MIX.map(([name]) => `${name} p50 / p99 ms`).join(' | ') +
        ' |',
    );
    report(`|---|---|---|---|---|${MIX.map(() => '---').join('|')}|`);
    for (const level of LEVELS) report(await runLevel(base, accounts, level));
    report('');
    report("Latencies are of the two enterprise accounts (the pro account's requests are mostly 429s by design).");
    report('');
  } finally {
    await services.stop();
    await teardown(env, single(redis));
  }
}

async function seed(env: Awaited<ReturnType<typeof setup>>, base: string): Promise<Account[]> {
  const accounts: Account[] = [];
  for (const tier of ['enterprise', 'enterprise', 'pro'] as const) {
    const created = await createAccount(
      env.db,
      { email: `api-bench-${accounts.length}-${Date.now()}@example.test`, tier, apiKeyName: 'bench 0' },
      { masterKey: Buffer.from(MASTER_KEY_HEX, 'hex') },
    );
    const id = created.account.id;
    if (tier === 'enterprise') {
      await env.db.pool.query(`UPDATE accounts SET "quotaOverrides" = $2 WHERE id = $1`, [
        id,
        { requestsPerMinute: 6_000_000, burst: 100_000 },
      ]);
    }
    const first = created.apiKey!.raw;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { 'x-api-key': first, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer = (await response.json()) as Record<string, unknown>;
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    const keys = [first];
    for (let k = 1; k < KEYS; k += 1)
      keys.push(String((await call('POST', '/api/api-keys', { name: `bench ${k}` })).apiKey));
    const job = await call('POST', '/api/jobs', { name: 'api bench', description: 'the api under load' });
    const endpointIds: string[] = [];
    for (let e = 0; e < ENDPOINTS_PER_ACCOUNT; e += 1) {
      const endpoint = await call('POST', `/api/jobs/${String(job.id)}/endpoints`, {
        name: `endpoint ${e}`,
        url: 'http://127.0.0.1:9/never',
        method: 'GET',
        baselineIntervalMs: 3_600_000,
      });
      endpointIds.push(String(endpoint.id));
    }
    // Runs by SQL: ids made like UUIDv7 (time in front), one every 10 s back from now.
    await env.db.pool.query(
      `INSERT INTO runs (id, "accountId", "endpointId", source, status, "scheduledAt", "startedAt", "completedAt",
                         "durationMs", "statusCode", "responseBody", "responseFormat", "responseSizeBytes", attempt)
       SELECT gen_random_uuid(), $1, e, 'baseline-interval', CASE WHEN i % 10 = 0 THEN 'failed' ELSE 'success' END::"RunStatus",
              now() - i * interval '10 seconds', now() - i * interval '10 seconds', now() - i * interval '10 seconds' + interval '50 ms',
              50, CASE WHEN i % 10 = 0 THEN 500 ELSE 200 END, '{"ok":true}'::jsonb, 'json', 11, 1
         FROM unnest($2::uuid[]) AS e, generate_series(1, $3) AS i`,
      [id, endpointIds, RUNS_PER_ENDPOINT],
    );
    accounts.push({ id, tier, keys, jobId: String(job.id), endpointIds });
  }
  await env.db.pool.query('ANALYZE');
  return accounts;
}

async function runLevel(base: string, accounts: Account[], inFlight: number): Promise<string> {
  const latencies = new Map<RouteClass, number[]>(MIX.map(([name]) => [name, []]));
  let done = 0;
  let serverErrors = 0;
  let limited = 0;
  let limitedWithoutRetryAfter = 0;
  let clientErrors = 0;
  const errors: string[] = [];
  const endAt = performance.now() + SECONDS * 1000;
  const startedAt = performance.now();
  const worker = async (w: number) => {
    for (let n = w; performance.now() < endAt && done < MAX_REQUESTS_PER_LEVEL; n += inFlight) {
      const account = accounts[n % accounts.length]!;
      const key = account.keys[Math.floor(Math.random() * account.keys.length)]!;
      const [routeClass, , make] = pick(Math.random());
      const request = make(account, n);
      const from = performance.now();
      const response = await fetch(`${base}${request.path}`, {
        method: request.method,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
      }).catch((error: Error) => error);
      done += 1;
      if (response instanceof Error) {
        serverErrors += 1;
        if (errors.length < 3) errors.push(`${request.method} ${request.path}: ${response.message}`);
        continue;
      }
      await response.arrayBuffer();
      const tookMs = performance.now() - from;
      if (response.status >= 500) {
        serverErrors += 1;
        if (errors.length < 3) errors.push(`${request.method} ${request.path}: ${response.status}`);
      } else if (response.status === 429) {
        limited += 1;
        if (!response.headers.get('retry-after')) limitedWithoutRetryAfter += 1;
      } else if (response.status >= 400) {
        clientErrors += 1;
        if (errors.length < 3) errors.push(`${request.method} ${request.path}: ${response.status}`);
      } else if (account.tier === 'enterprise') {
        latencies.get(routeClass)!.push(tookMs);
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, (_, w) => worker(w)));
  const seconds = (performance.now() - startedAt) / 1000;
  const cells = MIX.map(([name]) => {
    const sorted = latencies.get(name)!.sort((a, b) => a - b);
    return sorted.length === 0 ? '—' : `${percentile(sorted, 50).toFixed(0)} / ${percentile(sorted, 99).toFixed(0)}`;
  });
  return (
    `| ${inFlight} | ${thousands(Math.round(done / seconds))} | ${serverErrors}${errors.length ? ` (${errors.join('; ')})` : ''} | ` +
    `${thousands(limited)} (${limitedWithoutRetryAfter}) | ${clientErrors} | ${cells.join(' | ')} |`
  );
}
