import { DISPATCH_LEAD_MS, MAX_DISPATCH_WAIT_MS } from '@kairos/core';
import { baseConfigShape, loadConfig, tracingConfigSchema, type TracingConfig } from '@kairos/runtime';
import { z } from 'zod';

const schema = z.object({
  ...baseConfigShape,
  /** How often the reconcile sweep rebuilds missing delayed jobs from PostgreSQL. */
  SCHEDULER_RECONCILE_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(300_000)
    .default(15_000)
    .describe(
      'Period of the reconcile sweep, which rebuilds missing due jobs from PostgreSQL (a Redis loss is repaired within it).',
    ),
  /** Parallel recomputes per scheduler process (each holds one row lock briefly). */
  SCHEDULER_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .default(50)
    .describe('Parallel recomputes per scheduler process.'),
  /**
   * How long before a planned run's time its due job becomes due; the executor admits the run in
   * that time and calls at the run's time (packages/core/src/schedule/dispatch-lead.ts). 0: due
   * at the run's time, the admission's latency added to each call.
   */
  SCHEDULER_DISPATCH_LEAD_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_DISPATCH_WAIT_MS)
    .default(DISPATCH_LEAD_MS)
    .describe(
      "A due job becomes due this long before its run; the executor admits the run, then calls at the run's time. 0: off (docs/decisions/0001-dispatch-lead-300-ms.md).",
    ),
  /** A change left dirty this long without a recompute is repaired by the sweep. */
  SCHEDULER_DIRTY_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(5_000)
    .describe('A change not recomputed after this long is repaired by the sweep.'),
  /** How often old runs are deleted per the tier's retention (see runRetentionDays in packages/core/src/tiers.ts). */
  SCHEDULER_RETENTION_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(86_400_000)
    .default(600_000)
    .describe('Period of the runs retention sweep.'),
  SCHEDULER_HEALTH_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(3001)
    .describe("Port of the scheduler's `/healthz`, `/readyz` and `/metrics`."),
});

/** The schema itself, for the configuration reference (scripts/config-reference.ts). */
export const schedulerConfigSchema = schema;

export type SchedulerConfig = z.infer<typeof schema>;
export const loadSchedulerConfig = (env: NodeJS.ProcessEnv = process.env): SchedulerConfig => loadConfig(schema, env);

/** The OTEL_* settings main.ts needs before the service loads (packages/runtime/src/tracing.ts). */
export const loadTracingConfig = (env: NodeJS.ProcessEnv = process.env): TracingConfig =>
  loadConfig(tracingConfigSchema, env);
