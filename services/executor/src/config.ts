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
   * run's time (the 300 ms dispatch lead), the record and BullMQ's moves overlap the calls. 200: at
   * saturation on 2 cores, 100 slots leave the executor's thread idle a quarter of each second
   * waiting on PostgreSQL and Redis, and 200 carry 17 % more executions at less CPU each
   * (docs/decisions/0002-call-slots-200.md). Memory is bounded by EXECUTOR_RESPONSE_MEMORY_MB, not
   * by this count.
   */
  EXECUTOR_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(2000)
    .default(CALL_SLOTS)
    .describe(
      'Call slots per process: calls in flight, due and Test now runs alike; the due workers take twice as many jobs (docs/decisions/0002-call-slots-200.md).',
    ),
  /**
   * The response memory the calls and the runs awaiting their record may hold between them, in MiB:
   * each call reserves its endpoint's maxResponseSizeKb (default 100 KiB, cap 1 MiB) until its run is
   * recorded, and waits while the budget is taken. 100: 100 calls of the largest allowed response
   * (1 MiB), which fits the executor pod's 768 MiB limit (deploy/k8s/base/executor.yaml) with room for
   * the process; the 400 due jobs a process takes, all of default endpoints, reserve 40 MiB of it
   * (docs/decisions/0006-response-memory-budget-100-mib.md).
   */
  EXECUTOR_RESPONSE_MEMORY_MB: z.coerce
    .number()
    .int()
    .min(1)
    .max(65_536)
    .default(RESPONSE_MEMORY_MB)
    .describe(
      "MiB of response the calls and the runs awaiting their record may hold: each reserves its endpoint's maxResponseSizeKb and waits while the budget is taken (docs/decisions/0006-response-memory-budget-100-mib.md).",
    ),
  EXECUTOR_PLAN_NEXT_RUN: booleanFlag
    .default(true)
    .describe(
      "true (default): the recorder stores a successful run's next planned run with the run, one write of the endpoint's row per run (docs/decisions/0029-one-endpoint-write-per-run.md); false: the scheduler plans every next run after the run is recorded, a second write.",
    ),
  /** Allow calls to private, loopback and link-local addresses (self-hosting on a private network). */
  KAIROS_ALLOW_PRIVATE_TARGETS: booleanFlag
    .default(false)
    .describe('`true`: allow calls to private, loopback and link-local addresses (self-hosting on a private network).'),
  /** Comma-separated CIDR ranges allowed despite the private-address guard, e.g. 10.1.0.0/16. */
  KAIROS_ALLOWED_TARGET_CIDRS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    )
    .describe('Comma-separated CIDR ranges allowed despite the private-address guard, e.g. `10.1.0.0/16`.'),
  KAIROS_MASTER_KEY: z
    .string()
    .optional()
    .describe(
      "Decrypts the signing keys and shared secrets of outbound requests (or `id:key` pairs, current first): the api's value. Required when NODE_ENV=production (or KAIROS_MASTER_KEY_FILE).",
    ),
  KAIROS_MASTER_KEY_FILE: z
    .string()
    .optional()
    .describe('A file of master keys: one key, or `id:key` lines, current first; as the api.'),
  /** SMTP server for email notification channels, e.g. smtp://user:pass@mail.internal:587 (unset: no email). */
  KAIROS_SMTP_URL: z
    .url()
    .optional()
    .describe(
      'SMTP server of email notification channels, e.g. `smtp://user:pass@mail.internal:587`; unset: email deliveries fail.',
    ),
  /** Sender of notification emails. */
  KAIROS_SMTP_FROM: z.string().min(3).default('Kairos <kairos@localhost>').describe('Sender of notification emails.'),
  /** First notification retry delay; doubles per attempt (6 attempts: 2, 4, 8, 16, 32 s by default). */
  KAIROS_NOTIFICATION_RETRY_BASE_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(600_000)
    .default(2000)
    .describe('First notification retry delay, doubling per attempt (6 attempts, capped at 5 minutes).'),
  /** `production` refuses to start without KAIROS_MASTER_KEY (no development key file). */
  NODE_ENV: z
    .string()
    .optional()
    .describe('`production` refuses to start without KAIROS_MASTER_KEY (no development key file).'),
  /**
   * The queue shards whose due jobs this executor runs, e.g. `0,1` (default: every shard, current
   * and previous during a reshard). A pool per shard group scales on its own shards' depth.
   */
  KAIROS_EXECUTOR_SHARDS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be shard numbers, e.g. 0,1')
    .transform((value) => [...new Set(value.split(',').map(Number))])
    .optional()
    .describe(
      'The queue shards whose due jobs this executor runs, e.g. `0,1`. Unset: every shard (current and previous during a reshard).',
    ),
  EXECUTOR_HEALTH_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(3002)
    .describe("Port of the executor's `/healthz`, `/readyz` and `/metrics`."),
  /**
   * SIGTERM: stop taking jobs and let in-flight executions finish for at most this long; then hand
   * the rest back to the queue (same run ids) and exit. Default: the default endpoint timeout (30 s)
   * plus 5 s to record; keep Kubernetes' terminationGracePeriodSeconds above it.
   */
  EXECUTOR_SHUTDOWN_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(35_000)
    .describe(
      "On SIGTERM, how long in-flight executions may finish before they are handed back to the queue (same run ids); keep Kubernetes' terminationGracePeriodSeconds above it.",
    ),
});

/** The schema itself, for the configuration reference (scripts/config-reference.ts). */
export const executorConfigSchema = schema;

export type ExecutorConfig = z.infer<typeof schema>;
export const loadExecutorConfig = (env: NodeJS.ProcessEnv = process.env): ExecutorConfig => loadConfig(schema, env);

/** The OTEL_* settings main.ts needs before the service loads (packages/runtime/src/tracing.ts). */
export const loadTracingConfig = (env: NodeJS.ProcessEnv = process.env): TracingConfig =>
  loadConfig(tracingConfigSchema, env);
