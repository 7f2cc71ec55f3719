/**
 * Queue shards: `KAIROS_QUEUE_SHARDS` splits the queues whose traffic grows with
 * executions (`due`, `run-completed`, `run-completed-planner`: SHARDED_QUEUES in names.ts) into that
 * many BullMQ queues, each under its own Redis Cluster hash tag, so a cluster spreads them over its
 * masters. An endpoint belongs to one shard (`shardOf`): its due job, its running lock, its stashed
 * outcome and retry progress, and the quota counters its runs touch live on that shard, so the
 * executor's one admission script still touches one slot.
 *
 * Resharding (docs/operations/scaling.md "Queue shards and Redis Cluster"): every service runs for a while
 * with `KAIROS_QUEUE_SHARDS_PREVIOUS` set to the old count. Then executors also drain the old
 * shards, the scheduler stamps each due job that changed shard with the shard of its predecessor's
 * running lock (`lockShard`: admission checks that lock too, so the overlap policy holds across the
 * move), and the reconcile sweep moves each waiting due job to its new shard (remove-then-add).
 */
import { Queue } from 'bullmq';
import { createProbeConnection, redisTargetOf, type RedisConnection } from './connection.js';
import { SHARDED_QUEUES, type QueueName } from './names.js';

/** The shard layout every service of one installation shares. */
export interface QueueShards {
  /** KAIROS_QUEUE_SHARDS: shards new work goes to (1 = one queue per name under the prefix, as before #15). */
  count: number;
  /** KAIROS_QUEUE_SHARDS_PREVIOUS: the count before a reshard still in progress (unset otherwise). */
  previous?: number | undefined;
}

export const SINGLE_SHARD: QueueShards = { count: 1 };

/**
 * The key prefix of one shard. Shard 0 keeps the configured prefix (`{kairos}`: an existing
 * installation's keys do not move when it stays at one shard); shard k puts `-k` inside the hash
 * tag (`{kairos-1}`, `{kairos-2}`…) so each shard hashes to its own slot. A prefix that is not one
 * hash tag (`kairos`) gets `-k` appended: fine on a single Redis, refused by a cluster (BullMQ's
 * scripts then cross slots).
 */
export function shardPrefix(prefix: string, shard: number): string {
  if (shard === 0) return prefix;
  return prefix.endsWith('}') ? `${prefix.slice(0, -1)}-${shard}}` : `${prefix}-${shard}`;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;

/** 64-bit FNV-1a of the id's UTF-16 code units: stable across processes and versions (no seed). */
function fnv1a64(id: string): bigint {
  let hash = FNV_OFFSET;
  for (let index = 0; index < id.length; index += 1) {
    hash ^= BigInt(id.charCodeAt(index));
    hash = (hash * FNV_PRIME) & MASK_64;
  }
  return hash;
}

/**
 * The endpoint's shard among `count`: Lamping and Veach's jump consistent hash of the id's FNV-1a.
 * Chosen over `hash mod count` because a reshard moves the fewest endpoints: 3 → 4 moves a quarter
 * of them (mod would move three quarters), 3 → 2 only the third on the removed shard.
 */
export function shardOf(endpointId: string, count: number): number {
  if (count <= 1) return 0;
  let key = fnv1a64(endpointId);
  let bucket = -1;
  let next = 0;
  while (next < count) {
    bucket = next;
    key = (key * 2862933555777941757n + 1n) & MASK_64;
    next = Math.floor((bucket + 1) * (2 ** 31 / Number((key >> 33n) + 1n)));
  }
  return bucket;
}

/** Every shard that may still hold work: the current ones and, during a reshard, the previous ones. */
export function allShards(layout: QueueShards): number[] {
  return Array.from({ length: Math.max(layout.count, layout.previous ?? 0) }, (_, shard) => shard);
}

/** During a reshard, the endpoint's shard in the previous layout when it differs from its shard now. */
export function previousShardOf(endpointId: string, layout: QueueShards): number | undefined {
  if (layout.previous === undefined) return undefined;
  const before = shardOf(endpointId, layout.previous);
  return before === shardOf(endpointId, layout.count) ? undefined : before;
}

/** The layout a service's config names (KAIROS_QUEUE_SHARDS, KAIROS_QUEUE_SHARDS_PREVIOUS). */
export const queueShardsOf = (config: {
  KAIROS_QUEUE_SHARDS: number;
  KAIROS_QUEUE_SHARDS_PREVIOUS?: number | undefined;
}): QueueShards => ({ count: config.KAIROS_QUEUE_SHARDS, previous: config.KAIROS_QUEUE_SHARDS_PREVIOUS });

/**
 * Every queue of these names as BullMQ objects, one per shard for the SHARDED_QUEUES (for queue
 * depth metrics, readiness and Bull Board: every shard shows). The caller closes them.
 */
export function openShardedQueues(
  names: readonly QueueName[],
  connection: RedisConnection,
  prefix: string,
  layout: QueueShards,
): Queue[] {
  return names.flatMap((name) =>
    (SHARDED_QUEUES.includes(name) ? allShards(layout) : [0]).map(
      (shard) => new Queue(name, { connection, prefix: shardPrefix(prefix, shard) }),
    ),
  );
}

/** The settings every service shares about Redis and its queues (packages/runtime's baseConfigShape). */
export interface QueueConfig {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES?: string | undefined;
  KAIROS_QUEUE_PREFIX: string;
  KAIROS_QUEUE_SHARDS: number;
  KAIROS_QUEUE_SHARDS_PREVIOUS?: number | undefined;
}

/**
 * A service's readiness probe connection (fail-fast) and the queues it reports the depth of, every
 * shard of each. The caller closes the queues and disconnects the probe.
 */
export function openQueueProbe(
  config: QueueConfig,
  names: readonly QueueName[],
): { probeRedis: RedisConnection; queues: Queue[] } {
  const probeRedis = createProbeConnection(redisTargetOf(config));
  return {
    probeRedis,
    queues: openShardedQueues(names, probeRedis, config.KAIROS_QUEUE_PREFIX, queueShardsOf(config)),
  };
}
