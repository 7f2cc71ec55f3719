/**
 * BENCH_ONLY=cluster (only when named): the sustained scenario, BENCH_SUSTAINED endpoints at 1 s, on a
 * local Redis Cluster (three masters, three replicas: test/redis-cluster.ts) with 1 and 3 queue shards.
 * On two cores the point is correctness and each shard's cost (commands per execution, per master), not
 * speed-up. The prefix is chosen so the three shards' hash tags sit on three different masters (as an
 * operator places them: docs/operations/scaling.md "Queue shards and Redis Cluster").
 */
import { createRedisConnection, shardPrefix } from '@kairos/queue';
import { startRedisCluster, type RedisCluster } from '../../test/redis-cluster.js';
import type { BenchRedis, Bench } from '../environment.js';
import { kairosScenario } from '../kairos-window.js';
import { benchId } from '../lib.js';
import { ms, report, thousands } from '../report.js';
import { SUSTAINED } from '../settings.js';

export async function run({ target }: Bench): Promise<void> {
  const cluster: RedisCluster = await startRedisCluster();
  const connection = createRedisConnection({ url: '', clusterNodes: cluster.nodes });
  const redis: BenchRedis = {
    connection,
    nodes: async () => (await cluster.masters()).map((port) => cluster.node(port)),
  };
  try {
    const masters = await cluster.masters();
    let prefix = '';
    for (let attempt = 0; attempt < 500 && !prefix; attempt += 1) {
      const candidate = `{kb-${benchId()}}`;
      const owners = await Promise.all([0, 1, 2].map((shard) => cluster.masterOf(shardPrefix(candidate, shard))));
      if (new Set(owners).size === masters.length) prefix = candidate;
    }
    report(`## Redis Cluster (3 masters + 3 replicas on loopback), ${thousands(SUSTAINED)} endpoints at 1 s`);
    report('');
    report('| queue shards | delivered/s | lateness p50 / p99 | Redis commands per execution | per master |');
    report('|---|---|---|---|---|');
    for (const shards of [1, 3]) {
      const figures = await kairosScenario(`cluster_${shards}`, SUSTAINED, target, redis, {
        ai: false,
        prefix,
        overrides: { REDIS_CLUSTER_NODES: cluster.nodes, KAIROS_QUEUE_SHARDS: String(shards) },
      });
      report(
        `| ${shards} | ${figures.delivered.toFixed(0)} | ${ms(figures.lateness.p50)} / ${ms(figures.lateness.p99)} ms | ` +
          `${figures.redisCommands.toFixed(1)} | ${figures.redisCommandsPerNode.map((calls) => calls.toFixed(1)).join(' / ')} |`,
      );
    }
    report('');
  } finally {
    connection.disconnect();
    cluster.stop();
  }
}
