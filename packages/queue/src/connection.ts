import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection for BullMQ. Workers need `maxRetriesPerRequest: null` (blocking commands must
 * not be cut off); producers get the same so a Redis blip delays an enqueue instead of failing it.
 */
export function createRedisConnection(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, ...options });
}

/** A fail-fast connection for readiness probes and queue counts: a probe answers "unavailable", it never waits. */
export function createProbeConnection(url: string): Redis {
  const connection = new Redis(url, { maxRetriesPerRequest: 1 });
  connection.on('error', () => undefined);
  return connection;
}
