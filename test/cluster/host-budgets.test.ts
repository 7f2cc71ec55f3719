/**
 * Host budgets on a real Redis Cluster (test/redis-cluster.ts): a budget's two keys share their own
 * hash tag, so its scripts run without CROSSSLOT whatever master serves them, and the budgets of
 * different hosts spread over the masters instead of sitting on the queue prefix's slot.
 */
import { createRedisConnection, type RedisConnection } from '@kairos/queue';
import { HostBudgets } from '../../services/executor/src/host-budget.js';
import { startRedisCluster, type RedisCluster } from '../redis-cluster.js';

let cluster: RedisCluster;
let redis: RedisConnection;

beforeAll(async () => {
  cluster = await startRedisCluster();
  redis = createRedisConnection({ url: 'redis://unused', clusterNodes: cluster.nodes });
}, 60_000);
afterAll(() => {
  redis?.disconnect();
  cluster?.stop();
});

it('takes, releases and holds a place in a budget, on the masters the budgets hash to', async () => {
  const budgets = new HostBudgets(redis, '{kairos}');
  const masters = new Set<number>();
  for (let index = 0; index < 12; index += 1) {
    const budget = budgets.of({
      accountId: 'a1',
      url: `https://host-${index}.example.com/x`,
      hostLimits: [{ host: `host-${index}.example.com`, maxPerSecond: 10, maxConcurrent: 1 }],
    })!;
    const place = await budgets.take(budget, `run-${index}`, 1000);
    expect(place).toMatchObject({ kind: 'taken', waitedMs: null });
    // Released, the place is free again; the rate makes the next call wait its 100 ms, then it goes.
    await (place.kind === 'taken' ? place.release() : undefined);
    expect((await budgets.take(budget, `run-${index}-b`, 1000)).kind).toBe('taken');
    await budgets.hold(budget, 500);
    masters.add(await cluster.masterOf(budget.rateKey));
    expect(await cluster.masterOf(budget.callsKey)).toBe(await cluster.masterOf(budget.rateKey));
  }
  // Twelve hosts over three masters: not all on one (the queue prefix's slot would be one).
  expect(masters.size).toBeGreaterThan(1);
}, 60_000);
