/**
 * Every setting is an environment variable, validated once at start with a clear message
 * (documented in the README's Configuration table).
 */
import { z } from 'zod';

const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .default('postgresql://postgres@127.0.0.1:5432/kairos'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .default('redis://127.0.0.1:6379'),
  KAIROS_QUEUE_PREFIX: z.string().min(1).default('{kairos}'),
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'debug']).default('info'),
  /** Public base URL of the API (links in docs, device flow). */
  KAIROS_PUBLIC_URL: z.url().optional(),
  /** Seconds an authenticated API key stays cached in a process (revocation elsewhere takes this long). */
  KAIROS_AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
  KAIROS_TRUST_PROXY: booleanFlag.default(false),
});

export type ApiConfig = z.infer<typeof schema>;

export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
