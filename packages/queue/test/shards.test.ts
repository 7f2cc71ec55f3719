/** The shard of an endpoint is a pure, stable function of its id; prefixes keep one hash tag per shard. */
import { randomUUID } from 'node:crypto';
import { allShards, parseClusterNodes, previousShardOf, shardOf, shardPrefix } from '../src/index.js';

const ids = Array.from({ length: 3000 }, (_, index) => `endpoint-${index}-${index * 7919}`);

it('one shard keeps every endpoint on shard 0 under the configured prefix (the layout before shards)', () => {
  expect(ids.every((id) => shardOf(id, 1) === 0)).toBe(true);
  expect(shardPrefix('{kairos}', 0)).toBe('{kairos}');
});

it('is stable: fixed ids map to fixed shards (a change here would move every installation’s jobs)', () => {
  // Pinned values (FNV-1a 64 then jump hash): every process, every version must agree.
  expect([shardOf('a', 3), shardOf('b', 3), shardOf('c', 3), shardOf('endpoint-1', 16)]).toEqual([2, 0, 0, 2]);
  expect(shardOf('endpoint-a', 3)).toBe(shardOf('endpoint-a', 3));
});

it('spreads endpoints evenly (each of 3 shards within 10 % of a third)', () => {
  const uuids = Array.from({ length: 6000 }, () => randomUUID());
  const counts = [0, 0, 0];
  for (const id of uuids) counts[shardOf(id, 3)]! += 1;
  for (const count of counts) expect(Math.abs(count - 2000)).toBeLessThan(200);
});

it('moves the fewest endpoints on a reshard (jump hash): 3 → 4 moves about a quarter, all to the new shard', () => {
  const moved = ids.filter((id) => shardOf(id, 3) !== shardOf(id, 4));
  expect(moved.length / ids.length).toBeGreaterThan(0.2);
  expect(moved.length / ids.length).toBeLessThan(0.3);
  expect(moved.every((id) => shardOf(id, 4) === 3)).toBe(true);
  // 3 → 2: only the removed shard's endpoints move.
  expect(ids.filter((id) => shardOf(id, 3) !== shardOf(id, 2)).every((id) => shardOf(id, 3) === 2)).toBe(true);
});

it('gives each shard its own hash tag', () => {
  expect([0, 1, 2].map((shard) => shardPrefix('{kairos}', shard))).toEqual(['{kairos}', '{kairos-1}', '{kairos-2}']);
  expect(shardPrefix('kairos', 2)).toBe('kairos-2');
});

it('names the previous shard only during a reshard and only when it differs', () => {
  const id = ids.find((candidate) => shardOf(candidate, 3) !== 0)!;
  expect(previousShardOf(id, { count: 3 })).toBeUndefined();
  expect(previousShardOf(id, { count: 3, previous: 1 })).toBe(0);
  expect(previousShardOf(id, { count: 3, previous: 3 })).toBeUndefined();
  expect(allShards({ count: 2, previous: 3 })).toEqual([0, 1, 2]);
  expect(allShards({ count: 3, previous: 1 })).toEqual([0, 1, 2]);
});

it('parses REDIS_CLUSTER_NODES', () => {
  expect(parseClusterNodes('127.0.0.1:7400, redis-1.internal:6379')).toEqual([
    { host: '127.0.0.1', port: 7400 },
    { host: 'redis-1.internal', port: 6379 },
  ]);
  expect(() => parseClusterNodes('127.0.0.1')).toThrow(/host:port/);
});
