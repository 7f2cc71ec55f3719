/**
 * Service configuration: environment variables only, validated once at start with one clear
 * message listing every problem (documented in docs/operations/configuration.md).
 */
import { z } from 'zod';

export const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

/** Settings every service shares. */
export const baseConfigShape = {
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .default('postgresql://postgres@127.0.0.1:5432/kairos')
    .describe('PostgreSQL, the source of truth (`pnpm start` creates the database if it is missing).'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .default('redis://127.0.0.1:6379')
    .describe('Redis: the queues only, rebuilt from PostgreSQL when lost.'),
  /** A Redis Cluster's nodes, `host:port,host:port,…`: when set, every connection is a cluster one and REDIS_URL is unused. */
  REDIS_CLUSTER_NODES: z
    .preprocess(
      (value) => (value === '' ? undefined : value),
      z
        .string()
        .regex(/^[^,:\s]+:\d+(,[^,:\s]+:\d+)*$/, 'must be host:port,host:port,…')
        .optional(),
    )
    .describe(
      '`host:port,host:port,…` of a Redis Cluster: every connection becomes a cluster one and REDIS_URL is unused (docs/operations/scaling.md).',
    ),
  KAIROS_QUEUE_PREFIX: z.string().min(1).default('{kairos}').describe('BullMQ key prefix; a Redis Cluster hash tag.'),
  /**
   * Queue shards (packages/queue/src/shards.ts): 1 keeps every queue under KAIROS_QUEUE_PREFIX.
   * Every service of an installation must use the same value (docs/operations/scaling.md).
   */
  KAIROS_QUEUE_SHARDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(256)
    .default(1)
    .describe(
      'Queue shards: `due`, `run-completed` and `run-completed-planner` split over this many hash tags (`{kairos}`, `{kairos-1}`, …). The same value in every service.',
    ),
  /** Set to the old KAIROS_QUEUE_SHARDS while a reshard is in progress (docs/operations/scaling.md). */
  KAIROS_QUEUE_SHARDS_PREVIOUS: z
    .preprocess((value) => (value === '' ? undefined : value), z.coerce.number().int().min(1).max(256).optional())
    .describe('The old KAIROS_QUEUE_SHARDS while a reshard is in progress (docs/operations/scaling.md, resharding).'),
  /**
   * PostgreSQL connections per process. Default: sized from the service's concurrency (each
   * execution or recompute holds a connection only for a few statements). Keep the sum over all
   * processes below the server's max_connections (100 by default).
   */
  DATABASE_POOL_MAX: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .optional()
    .describe(
      "PostgreSQL connections per process, each kept open once opened. Unset: sized from the service's concurrency. Keep the sum over all processes below the server's max_connections.",
    ),
  LOG_LEVEL: z
    .enum(['error', 'warn', 'info', 'http', 'debug'])
    .default('info')
    .describe('`error`, `warn`, `info`, `http` or `debug`.'),
  /** When set, every /metrics endpoint requires `Authorization: Bearer <token>` (docs/operations/observability.md). */
  KAIROS_METRICS_TOKEN: z
    .preprocess(
      (value) => (value === '' ? undefined : value),
      z.string().min(16, 'must be at least 16 characters').optional(),
    )
    .describe(
      'When set, `/metrics` requires `Authorization: Bearer <token>` (16 characters or more). Required by the api when NODE_ENV=production.',
    ),
};

export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
