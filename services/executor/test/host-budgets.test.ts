/**
 * Host budgets (services/executor/src/host-budget.ts): an account's hostLimits hold every endpoint
 * of the account calling the host, across executors. Two executors (the engine's and a second one on
 * the same queue) share one Redis budget: 50 endpoints on one host limited to 5 calls a second reach
 * it at most 5 (+1 on a window's edge) in any second, and every run is recorded, late (waitedForHostMs)
 * but never dropped, also those whose due job the budget gave back to the queue. maxConcurrent holds
 * against a slow target; a 429 with Retry-After from the host holds the other endpoints on it too;
 * an account without limits makes no Redis call for them.
 */
import type { ServerResponse } from 'node:http';
import type { RedisConnection } from '@kairos/queue';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, startExecutor, waitFor, type Engine, type Executor } from '../../../test/engine.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { HOST_RETRY_AFTER_MAX_MS, HostBudgets } from '../src/host-budget.js';

let harness: ApiHarness;
let engine: Engine;
let second: Executor;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness, { executorConcurrency: 20 });
  second = await startExecutor(harness, {
    concurrency: 20,
    egress: { allowPrivateTargets: false, allowCidrs: ['127.0.0.0/8'] },
  });
});
afterAll(async () => {
  await second.close();
  await engine.close();
  await harness.close();
});

/** A target recording when each request arrived; `answer` replies (default: 200 at once). */
async function target(
  answer: (url: string, res: ServerResponse) => void = (_url, res) => res.end('{"ok":true}'),
): Promise<{ server: TestServer; arrivals: { url: string; at: number }[] }> {
  const arrivals: { url: string; at: number }[] = [];
  const server = await startTestServer((req, res) => {
    arrivals.push({ url: req.url ?? '', at: Date.now() });
    answer(req.url ?? '', res);
  });
  return { server, arrivals };
}

async function accountWith(hostLimits: unknown): Promise<{ api: ApiClient; accountId: string }> {
  const account = await harness.createAccount({ tier: 'enterprise' });
  const api = harness.client(account.apiKey);
  if (hostLimits !== null) {
    const set = await api.patch('/api/account/settings', { hostLimits });
    expect(set.status).toBe(200);
  }
  return { api, accountId: account.accountId };
}

/** `count` hourly endpoints on `origin` (each runs once here, at once); their ids. */
async function endpoints(api: ApiClient, origin: string, name: string, count: number): Promise<string[]> {
  const jobId = (await api.post('/api/jobs', { name })).body.id as string;
  const ids: string[] = [];
  // Ten at a time, so that they fall due close together however busy the machine is.
  for (let from = 0; from < count; from += 10) {
    const batch = Array.from({ length: Math.min(10, count - from) }, (_, offset) => from + offset);
    const created = await Promise.all(
      batch.map((index) =>
        api.post(`/api/jobs/${jobId}/endpoints`, {
          name: `${name} ${index}`,
          url: `${origin}/${name}/${index}`,
          method: 'GET',
          baselineIntervalMs: 3_600_000,
        }),
      ),
    );
    for (const response of created) {
      expect(response.status).toBe(201);
      ids.push(response.body.id as string);
    }
  }
  return ids;
}

const runsOf = (ids: string[]) =>
  harness.db.prisma.run.findMany({ where: { endpointId: { in: ids } }, orderBy: { startedAt: 'asc' } });

/** The most arrivals in any one-second window. */
function mostInOneSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < sorted.length; last += 1) {
    while (sorted[last]! - sorted[first]! >= 1000) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

it('holds 5 calls a second to one host across two executors for 50 endpoints, and records every run', async () => {
  const { server, arrivals } = await target();
  try {
    const { api } = await accountWith([{ host: `127.0.0.1:${server.port}`, maxPerSecond: 5 }]);
    // Both executors take part: each is seen with due jobs in flight.
    const busy = [0, 0];
    const sampler = setInterval(() => {
      busy[0] = Math.max(busy[0]!, engine.executor!.inFlightCount);
      busy[1] = Math.max(busy[1]!, second.inFlightCount);
    }, 20);
    const ids = await endpoints(api, server.origin, 'rate', 50);
    // 50 calls at 5 a second: about 10 s; bounded at 40 s.
    const runs = await waitFor(
      async () => {
        const found = await runsOf(ids);
        return found.length >= 50 && found;
      },
      40_000,
      'a run of each of the 50 endpoints',
    ).finally(() => clearInterval(sampler));
    expect(busy[0]).toBeGreaterThan(0);
    expect(busy[1]).toBeGreaterThan(0);
    expect(new Set(runs.map((run) => run.endpointId)).size).toBe(50);
    expect(runs.every((run) => run.status === 'success')).toBe(true);
    // A due job the budget gave back is not a new delivery.
    expect(runs.every((run) => run.attempt === 1)).toBe(true);
    const times = arrivals.filter((arrival) => arrival.url.startsWith('/rate/')).map((arrival) => arrival.at);
    expect(times).toHaveLength(50);
    expect(mostInOneSecond(times)).toBeLessThanOrEqual(6);
    // The calls took about 10 s in all: each after the one before, not 50 at once.
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(8_000);
    // The runs held are late and say so; only those made while the budget had room went at once.
    const waited = runs.filter((run) => run.waitedForHostMs !== null);
    expect(waited.length).toBeGreaterThanOrEqual(30);
    expect(waited.every((run) => run.waitedForHostMs! > 0)).toBe(true);
    // Some waited longer than the executor waits in process: their due jobs were delayed and came back.
    expect(Math.max(...waited.map((run) => run.waitedForHostMs!))).toBeGreaterThan(3_000);
    const shown = await api.get(`/api/runs/${waited.at(-1)!.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.waitedForHostMs).toBe(waited.at(-1)!.waitedForHostMs);
  } finally {
    await server.close();
  }
}, 60_000);

it('holds maxConcurrent calls in flight to a slow host', async () => {
  let open = 0;
  let mostOpen = 0;
  const { server } = await target((_url, res) => {
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    setTimeout(() => {
      open -= 1;
      res.end('{"ok":true}');
    }, 1_000);
  });
  try {
    const { api } = await accountWith([{ host: '127.0.0.1', maxConcurrent: 2 }]);
    const ids = await endpoints(api, server.origin, 'slow', 8);
    const runs = await waitFor(
      async () => {
        const found = await runsOf(ids);
        return found.length >= 8 && found;
      },
      30_000,
      'a run of each slow endpoint',
    );
    expect(mostOpen).toBe(2);
    expect(runs.every((run) => run.status === 'success')).toBe(true);
    expect(runs.filter((run) => run.waitedForHostMs !== null).length).toBeGreaterThanOrEqual(4);
  } finally {
    await server.close();
  }
}, 45_000);

it('holds the whole host after a 429 with Retry-After, not only the endpoint that got it', async () => {
  const { server, arrivals } = await target((url, res) => {
    if (url.startsWith('/busy/')) {
      res.writeHead(429, { 'retry-after': '2' });
      res.end('slow down');
    } else res.end('{"ok":true}');
  });
  try {
    const { api } = await accountWith([{ host: '127.0.0.1', maxPerSecond: 100 }]);
    const [busy] = await endpoints(api, server.origin, 'busy', 1);
    await waitFor(async () => (await runsOf([busy!])).length === 1, 15_000, 'the 429 run');
    const answeredAt = arrivals.find((arrival) => arrival.url.startsWith('/busy/'))!.at;
    const others = await endpoints(api, server.origin, 'other', 4);
    const runs = await waitFor(
      async () => {
        const found = await runsOf(others);
        return found.length >= 4 && found;
      },
      20_000,
      'a run of each other endpoint',
    );
    const times = arrivals.filter((arrival) => arrival.url.startsWith('/other/')).map((arrival) => arrival.at);
    expect(times).toHaveLength(4);
    // Retry-After: 2 s from the 429 (less a little for the clocks of Redis and this process).
    expect(Math.min(...times) - answeredAt).toBeGreaterThanOrEqual(1_900);
    expect(runs.every((run) => run.status === 'success' && run.waitedForHostMs! > 0)).toBe(true);
  } finally {
    await server.close();
  }
}, 45_000);

it('touches no budget without host limits: no Redis call, no key', async () => {
  // Counted: a client whose every command is counted answers nothing for an account without limits.
  let calls = 0;
  const counted = new Proxy(
    {},
    {
      get: () => () => {
        calls += 1;
        return Promise.resolve(null);
      },
    },
  ) as RedisConnection;
  const budgets = new HostBudgets(counted, harness.queuePrefix);
  const unset = { accountId: 'a', url: 'http://127.0.0.1:1/x', hostLimits: null };
  expect(budgets.of(unset)).toBeNull();
  // Limits for other hosts only: none applies, still no call.
  expect(budgets.of({ ...unset, hostLimits: [{ host: 'api.example.com', maxPerSecond: 1 }] })).toBeNull();
  expect(calls).toBe(0);
  // A budget's two keys share their own hash tag (one Redis Cluster slot), not the queue prefix's.
  const budget = budgets.of({ ...unset, hostLimits: [{ host: '127.0.0.1', maxPerSecond: 1 }] })!;
  const tagOf = (key: string) => key.slice(key.indexOf('{') + 1, key.indexOf('}'));
  expect(tagOf(budget.rateKey)).toBe('a/127.0.0.1');
  expect(tagOf(budget.callsKey)).toBe('a/127.0.0.1');

  // And an account without limits runs its endpoints with no budget key in Redis and no wait recorded.
  const { server } = await target();
  try {
    const { api, accountId } = await accountWith(null);
    const ids = await endpoints(api, server.origin, 'free', 3);
    const runs = await waitFor(
      async () => {
        const found = await runsOf(ids);
        return found.length >= 3 && found;
      },
      15_000,
      'a run of each endpoint',
    );
    expect(runs.every((run) => run.waitedForHostMs === null)).toBe(true);
    const name = harness.queuePrefix.replaceAll('{', '').replaceAll('}', '');
    const keys = await harness.redis.keys(`${name}:host:{${accountId}/*`);
    expect(keys).toEqual([]);
  } finally {
    await server.close();
  }
}, 30_000);

describe('the budget in Redis', () => {
  const limited = (accountId: string, hostLimits: unknown) => ({
    accountId,
    url: 'https://api.example.com/x',
    hostLimits,
  });

  it('frees the call place of an execution that never released it once its lease ends', async () => {
    const budgets = new HostBudgets(harness.redis, harness.queuePrefix, 0);
    const budget = budgets.of(limited('leak', [{ host: 'api.example.com', maxConcurrent: 1 }]))!;
    // An executor killed during its call: its place is taken and never released.
    expect(await budgets.take(budget, 'killed-run', 300)).toMatchObject({ kind: 'taken', waitedMs: null });
    const next = await budgets.take(budget, 'next-run', 300);
    expect(next.kind).toBe('taken');
    expect(next.kind === 'taken' && next.waitedMs).toBeGreaterThanOrEqual(200);
    await (next.kind === 'taken' ? next.release() : undefined);
    expect(await harness.redis.zcard(budget.callsKey)).toBe(0);
  });

  it('cuts a Retry-After hold to its maximum, and the keys expire by themselves', async () => {
    const budgets = new HostBudgets(harness.redis, harness.queuePrefix);
    const budget = budgets.of(limited('hold', [{ host: 'api.example.com', maxPerSecond: 2 }]))!;
    expect((await budgets.take(budget, 'first', 1000)).kind).toBe('taken');
    await budgets.hold(budget, 10 * 3_600_000);
    const blocked = Number(await harness.redis.hget(budget.rateKey, 'blocked'));
    expect(blocked - Date.now()).toBeLessThanOrEqual(HOST_RETRY_AFTER_MAX_MS + 50);
    expect(blocked - Date.now()).toBeGreaterThan(HOST_RETRY_AFTER_MAX_MS - 5_000);
    const ttl = await harness.redis.pttl(budget.rateKey);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(HOST_RETRY_AFTER_MAX_MS + 1_000);
    // Held: the executor waits no longer than it may in process, then hands the run back.
    const held = await budgets.take(budget, 'second', 1000);
    expect(held).toMatchObject({ kind: 'later' });
    expect(held.kind === 'later' && held.atMs - Date.now()).toBeGreaterThan(HOST_RETRY_AFTER_MAX_MS - 10_000);
  });
});
