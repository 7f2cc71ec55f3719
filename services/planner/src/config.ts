import { baseConfigShape, loadConfig, tracingConfigSchema, type TracingConfig } from '@kairos/runtime';
import { z } from 'zod';
import type { ModelSettings } from './model.js';

const emptyAsUnset = (value: unknown) => (value === '' ? undefined : value);

const schema = z.object({
  ...baseConfigShape,
  /** Without a key the planner starts, drains its queue and calls nothing (degraded mode). */
  ANTHROPIC_API_KEY: z
    .preprocess(emptyAsUnset, z.string().optional())
    .describe(
      'Key of the model API; without it the planner stays idle (degraded mode: schedules run on their baselines).',
    ),
  /**
   * Any server speaking the Messages API, such as a local model server or a compatible gateway
   * (docs/guide/ai-rules.md); tests point it at a fake.
   */
  ANTHROPIC_BASE_URL: z
    .preprocess(emptyAsUnset, z.url({ error: 'must be a URL' }).optional())
    .describe("The Messages API base URL; unset: Anthropic's."),
  PLANNER_MODEL: z.string().min(1).default('claude-sonnet-5-5').describe('The model the planner asks.'),
  /** Model calls per analysis at most (each answers tool results); past it the analysis fails. */
  PLANNER_MAX_STEPS: z.coerce
    .number()
    .int()
    .min(1)
    .max(50)
    .default(8)
    .describe('Model calls per analysis at most; past it the analysis fails.'),
  /** Analyses in flight per planner process: the ceiling on parallel model conversations. */
  PLANNER_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(4)
    .describe('Analyses in flight per planner process.'),
  /** Least time between two analyses of one endpoint, whatever changes in between. */
  PLANNER_MIN_ANALYSIS_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .default(60_000)
    .describe('Least time between two analyses of one endpoint.'),
  /** One analysis (the whole tool loop, retries included) is abandoned after this long. */
  PLANNER_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(600_000)
    .default(60_000)
    .describe('Time limit of one analysis (the whole tool loop, retries included).'),
  /** Retries of one model call (429, 5xx, 529 overloaded, connection errors) whose wait fits before the deadline. */
  PLANNER_MODEL_MAX_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(5)
    .default(1)
    .describe(
      'Retries of one model call (429, 5xx, overloaded, connection errors) whose wait fits before the deadline.',
    ),
  /** Failed model calls in a row after which the planner pauses model calls (model-pause.ts). */
  PLANNER_MODEL_PAUSE_AFTER_FAILURES: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(5)
    .describe('Failed model calls in a row that pause model calls for every planner.'),
  /** The first pause; each pause that follows without an answer doubles, up to the longest. */
  PLANNER_MODEL_PAUSE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(3_600_000)
    .default(60_000)
    .describe('The first such pause; each one that follows without an answer doubles.'),
  PLANNER_MODEL_PAUSE_MAX_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(3_600_000)
    .default(600_000)
    .describe('The longest such pause.'),
  PLANNER_HEALTH_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(3003)
    .describe("Port of the planner's `/healthz`, `/readyz` and `/metrics`."),
});

/** The schema itself, for the configuration reference (scripts/config-reference.ts). */
export const plannerConfigSchema = schema;

export type PlannerConfig = z.infer<typeof schema>;
export const loadPlannerConfig = (env: NodeJS.ProcessEnv = process.env): PlannerConfig => loadConfig(schema, env);

/** The model the configuration names; null without ANTHROPIC_API_KEY (degraded mode). */
export function modelSettingsOf(config: PlannerConfig): ModelSettings | null {
  if (!config.ANTHROPIC_API_KEY) return null;
  return {
    apiKey: config.ANTHROPIC_API_KEY,
    baseURL: config.ANTHROPIC_BASE_URL,
    model: config.PLANNER_MODEL,
    maxRetries: config.PLANNER_MODEL_MAX_RETRIES,
  };
}

/** The OTEL_* settings main.ts needs before the service loads (packages/runtime/src/tracing.ts). */
export const loadTracingConfig = (env: NodeJS.ProcessEnv = process.env): TracingConfig =>
  loadConfig(tracingConfigSchema, env);
