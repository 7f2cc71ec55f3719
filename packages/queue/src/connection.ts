import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/** A connection to one Redis or to a Redis Cluster: BullMQ and every command we send accept both. */
export type RedisConnection = Redis | Cluster;

/**
 * Where Redis is: REDIS_URL, or REDIS_CLUSTER_NODES (`host:port,host:port,…`, any few masters or
 * replicas: ioredis discovers the rest) which wins when set. The one place a service decides.
 */
export interface RedisTarget {
  url: string;
  clusterNodes?: string | undefined;
}

/** The target a service's config names (REDIS_URL, REDIS_CLUSTER_NODES). */
export const redisTargetOf = (config: {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES?: string | undefined;
}): RedisTarget => ({
  url: config.REDIS_URL,
  clusterNodes: config.REDIS_CLUSTER_NODES,
});

/** `host:port,host:port` → ioredis Cluster start-up nodes. */
export function parseClusterNodes(nodes: string): { host: string; port: number }[] {
  return nodes
    .split(',')
    .map((node) => node.trim())
    .filter(Boolean)
    .map((node) => {
      const at = node.lastIndexOf(':');
      const port = Number(node.slice(at + 1));
      if (at <= 0 || !Number.isInteger(port) || port <= 0)
        throw new Error(`REDIS_CLUSTER_NODES: "${node}" is not host:port`);
      return { host: node.slice(0, at), port };
    });
}

function connect(target: string | RedisTarget, options: RedisOptions): RedisConnection {
  const resolved = typeof target === 'string' ? { url: target } : target;
  if (!resolved.clusterNodes) return new Redis(resolved.url, options);
  const { lazyConnect, enableOfflineQueue, enableReadyCheck, ...nodeOptions } = options;
  const clusterOptions: ClusterOptions = {
    redisOptions: nodeOptions,
    // Commands queue while a failover elects the replica (a few seconds) instead of failing:
    // BullMQ workers and the admission script then carry on against the new master. A caller
    // that must fail fast (the api's producers) turns it off, as on a single Redis.
    enableOfflineQueue: enableOfflineQueue ?? true,
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    ...(enableReadyCheck === undefined ? {} : { enableReadyCheck }),
  };
  return new Cluster(parseClusterNodes(resolved.clusterNodes), clusterOptions);
}

/**
 * A Redis connection for BullMQ. Workers need `maxRetriesPerRequest: null` (blocking commands must
 * not be cut off); producers get the same so a Redis blip delays an enqueue instead of failing it.
 */
export function createRedisConnection(url: string, options?: RedisOptions): Redis;
export function createRedisConnection(target: RedisTarget, options?: RedisOptions): RedisConnection;
export function createRedisConnection(target: string | RedisTarget, options: RedisOptions = {}): RedisConnection {
  return connect(target, { maxRetriesPerRequest: null, enableReadyCheck: true, ...options });
}

/** A fail-fast connection for readiness probes and queue counts: a probe answers "unavailable", it never waits. */
export function createProbeConnection(target: string | RedisTarget): RedisConnection {
  const connection = connect(target, { maxRetriesPerRequest: 1 });
  connection.on('error', () => undefined);
  return connection;
}
