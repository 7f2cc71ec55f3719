import { baseConfigShape, booleanFlag, loadConfig } from '@kairos/runtime';
import { parseMasterKey } from '@kairos/core';
import { z } from 'zod';

const schema = z.object({
  ...baseConfigShape,
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /** Public base URL of the API (links in docs, device flow). */
  KAIROS_PUBLIC_URL: z.url().optional(),
  /** Seconds an authenticated API key stays cached in a process (revocation elsewhere takes this long). */
  KAIROS_AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
  KAIROS_TRUST_PROXY: booleanFlag.default(false),
  NODE_ENV: z.string().optional(),
  /**
   * Encrypts signing keys at rest: 64 hex characters or base64 of 32 bytes. Required in production;
   * elsewhere a development key is kept in .kairos/master.key (see master-key.ts).
   */
  KAIROS_MASTER_KEY: z
    .string()
    .optional()
    .refine((value) => {
      if (value === undefined || value.trim() === '') return true;
      try {
        parseMasterKey(value);
        return true;
      } catch {
        return false;
      }
    }, 'must be 64 hexadecimal characters or base64 of 32 bytes (generate one with: openssl rand -hex 32)'),
});

export type ApiConfig = z.infer<typeof schema>;

export const loadApiConfig = (env: NodeJS.ProcessEnv = process.env): ApiConfig => loadConfig(schema, env);
