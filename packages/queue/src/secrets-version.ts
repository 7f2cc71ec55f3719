/**
 * A counter per account, bumped by the API whenever one of its shared secrets changes: executors
 * keep decrypted secrets briefly (services/executor/src/secrets.ts) and reload them when the counter
 * moved, so an update reaches every endpoint that uses the secret at its next run. Derived state:
 * a flushed counter reads as null, which differs from any cached value and forces a reload.
 */
import type { RedisConnection } from './connection.js';

const TTL_SECONDS = 7 * 24 * 3600;

export const secretsVersionKey = (prefix: string, accountId: string): string =>
  `${prefix}:secrets-version:${accountId}`;

export async function bumpSecretsVersion(redis: RedisConnection, prefix: string, accountId: string): Promise<void> {
  const key = secretsVersionKey(prefix, accountId);
  await redis.multi().incr(key).expire(key, TTL_SECONDS).exec();
}

export async function readSecretsVersion(
  redis: RedisConnection,
  prefix: string,
  accountId: string,
): Promise<string | null> {
  return redis.get(secretsVersionKey(prefix, accountId));
}
