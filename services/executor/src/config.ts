import { baseConfigShape, booleanFlag, loadConfig, tracingConfigSchema, type TracingConfig } from '@kairos/runtime';
import { z } from 'zod';

/** EXECUTOR_CONCURRENCY's default (call slots; why 200: below). */
export const CALL_SLOTS = 200;
/** EXECUTOR_RESPONSE_MEMORY_MB's default (MiB). */
export const RESPONSE_MEMORY_MB = 100;

const schema = z.object({
  ...baseConfigShape,
  /**
   * Call slots per executor process: executions calling their endpoint at once, due and Test now
   * runs (src/call-slots.ts); the due workers take twice as many jobs, so admission, the wait for the
   * run's time (the 300 ms dispatch lead), the record and BullMQ's moves overlap the calls (the
   * record held a slot until session 28; the figures below are from before). 200, measured back to
   * back at saturation on 2 cores (docs/benchmarks.md, session 10, `BENCH_ONLY=concurrency`, 8,500
   * endpoints at 1 s): 100 → 2,907, 2,906, 3,003/s; 200 → 3,477, 3,397/s, at 0.47–0.49 CPU-ms per
   * execution against 0.55–0.57 (larger record batches). With 100 the executor's thread idled a
   * quarter of each second waiting on PostgreSQL and Redis while every slot was taken. On a slower
   * host (session 9) 200 read 1,996 and 2,160/s against 1,923 and 1,820/s. Memory is bounded by
   * EXECUTOR_RESPONSE_MEMORY_MB, not by this count.
   */
  EXECUTOR_CONCURRENCY: z.coerce.number().int().min(1).max(2000).default(CALL_SLOTS),
  /**
   * The response memory the calls and the runs awaiting their record may hold between them, in MiB:
   * each call reserves its endpoint's maxResponseSizeKb (default 100 KiB, cap 1 MiB) until its run is
   * recorded, and waits while the budget is taken. 100: the old worst case of 100 slots × 1 MiB, which
   * fits the executor pod's 768 MiB limit (deploy/k8s/base/executor.yaml) with room for the process;
   * the 400 due jobs a process takes, all of default endpoints, reserve 40 MiB of it.
   */
  EXECUTOR_RESPONSE_MEMORY_MB: z.coerce.number().int().min(1).max(65_536).default(RESPONSE_MEMORY_MB),
  /**
   * The recorder stores a successful run's next planned run with the run (one write of the endpoint's
   * row per execution instead of two: docs/capacity.md); false leaves every plan to the scheduler's
   * recompute after the run, as releases before did (for comparing the two).
   */
  EXECUTOR_PLAN_NEXT_RUN: booleanFlag.default(true),
  /** Allow calls to private, loopback and link-local addresses (self-hosting on a private network). */
  KAIROS_ALLOW_PRIVATE_TARGETS: booleanFlag.default(false),
  /** Comma-separated CIDR ranges allowed despite the private-address guard, e.g. 10.1.0.0/16. */
  KAIROS_ALLOWED_TARGET_CIDRS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  KAIROS_MASTER_KEY: z.string().optional(),
  /** SMTP server for email notification channels, e.g. smtp://user:pass@mail.internal:587 (unset: no email). */
  KAIROS_SMTP_URL: z.url().optional(),
  /** Sender of notification emails. */
  KAIROS_SMTP_FROM: z.string().min(3).default('Kairos <kairos@localhost>'),
  /** First notification retry delay; doubles per attempt (6 attempts: 2, 4, 8, 16, 32 s by default). */
  KAIROS_NOTIFICATION_RETRY_BASE_MS: z.coerce.number().int().min(10).max(600_000).default(2000),
  /** `production` refuses to start without KAIROS_MASTER_KEY (no development key file). */
  NODE_ENV: z.string().optional(),
  /**
   * The queue shards whose due jobs this executor runs, e.g. `0,1` (default: every shard, current
   * and previous during a reshard). A pool per shard group scales on its own shards' depth.
   */
  KAIROS_EXECUTOR_SHARDS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be shard numbers, e.g. 0,1')
    .transform((value) => [...new Set(value.split(',').map(Number))])
    .optional(),
  EXECUTOR_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(3002),
  /**
   * SIGTERM: stop taking jobs and let in-flight executions finish for at most this long; then hand
   * the rest back to the queue (same run ids) and exit. Default: the default endpoint timeout (30 s)
   * plus 5 s to record; keep Kubernetes' terminationGracePeriodSeconds above it.
   */
  EXECUTOR_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(35_000),
});

export type ExecutorConfig = z.infer<typeof schema>;
export const loadExecutorConfig = (env: NodeJS.ProcessEnv = process.env): ExecutorConfig => loadConfig(schema, env);

/** The OTEL_* settings main.ts needs before the service loads (packages/runtime/src/tracing.ts). */
export const loadTracingConfig = (env: NodeJS.ProcessEnv = process.env): TracingConfig =>
  loadConfig(tracingConfigSchema, env);
