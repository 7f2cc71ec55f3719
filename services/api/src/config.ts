import { baseConfigShape, loadConfig, tracingConfigSchema, type TracingConfig } from '@kairos/runtime';
import { parseMasterKeys } from '@kairos/core';
import { z } from 'zod';
import { parseTrustProxy } from './http/trust-proxy.js';

const schema = z
  .object({
    ...baseConfigShape,
    PORT: z.coerce
      .number()
      .int()
      .min(0)
      .max(65535)
      .default(3000)
      .describe("Port of the HTTP API, the web UI and the api's `/healthz`, `/readyz`, `/metrics`."),
    HOST: z.string().default('0.0.0.0').describe('Address the api listens on.'),
    /** Public base URL of the API (links in docs, device flow). */
    KAIROS_PUBLIC_URL: z
      .url()
      .optional()
      .describe(
        'Public base URL (OpenAPI `servers`, sign-in redirects, device-flow and confirmation links; https turns on HSTS). Required when NODE_ENV=production.',
      ),
    /** Seconds an authenticated API key stays cached in a process (revocation elsewhere takes this long). */
    KAIROS_AUTH_CACHE_SECONDS: z.coerce
      .number()
      .int()
      .min(0)
      .max(300)
      .default(10)
      .describe(
        'How long a process caches a verified API key (a revocation through the same process applies at once).',
      ),
    /** Which peers may set X-Forwarded-For / -Proto: false, a hop count, or proxy ranges (http/trust-proxy.ts). */
    KAIROS_TRUST_PROXY: z
      .string()
      .default('false')
      .transform((raw, ctx) => {
        const parsed = parseTrustProxy(raw);
        if ('value' in parsed) return parsed.value;
        ctx.addIssue({
          code: 'custom',
          message:
            'must be false, a hop count (true is one hop), or comma-separated IP addresses, CIDR ranges and ' +
            `loopback, linklocal, uniquelocal (${parsed.error})`,
        });
        return z.NEVER;
      })
      .describe(
        'Proxies allowed to set `X-Forwarded-*`: `false`, a hop count (`true` = 1), or addresses and CIDR ranges (docs/operations/security.md).',
      ),
    /**
     * Device-flow requests pending at once, across all clients (each lives 10 minutes): past it, new
     * ones answer 429 until one expires. The per-address rate limit alone lets many addresses fill the table.
     */
    KAIROS_DEVICE_CODES_MAX_PENDING: z.coerce
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .default(10_000)
      .describe('Device-flow requests pending at once, all clients together; past it new ones answer 429.'),
    // --- sign-in (auth/): an OpenID Connect issuer and/or GitHub; with neither, a local admin link ---
    /** Issuer URL of any OpenID Connect provider (discovery at <issuer>/.well-known/openid-configuration). */
    KAIROS_OIDC_ISSUER: z
      .url()
      .optional()
      .describe(
        'Sign-in with any OpenID Connect issuer (authorization code + PKCE); redirect URI `<KAIROS_PUBLIC_URL>/api/auth/oidc/callback`.',
      ),
    KAIROS_OIDC_CLIENT_ID: z.string().min(1).optional().describe('Client id at the OpenID Connect issuer.'),
    /** Omit for a public client (PKCE only). */
    KAIROS_OIDC_CLIENT_SECRET: z
      .string()
      .min(1)
      .optional()
      .describe('Client secret at the OpenID Connect issuer; unset for a public client (PKCE only).'),
    /** Label of the sign-in button. */
    KAIROS_OIDC_NAME: z
      .string()
      .min(1)
      .default('Single sign-on')
      .describe('Label of the OpenID Connect sign-in button.'),
    KAIROS_OIDC_SCOPES: z
      .string()
      .min(1)
      .default('openid email profile')
      .describe('Scopes asked of the OpenID Connect issuer.'),
    KAIROS_GITHUB_CLIENT_ID: z
      .string()
      .min(1)
      .optional()
      .describe('Sign-in with GitHub OAuth; redirect URI `<KAIROS_PUBLIC_URL>/api/auth/github/callback`.'),
    KAIROS_GITHUB_CLIENT_SECRET: z.string().min(1).optional().describe('Client secret of the GitHub OAuth app.'),
    /** GitHub endpoints (GitHub Enterprise Server, or a local fake in tests). */
    KAIROS_GITHUB_AUTHORIZE_URL: z
      .url()
      .default('https://github.com/login/oauth/authorize')
      .describe("GitHub's authorize endpoint (GitHub Enterprise Server: its own)."),
    KAIROS_GITHUB_TOKEN_URL: z
      .url()
      .default('https://github.com/login/oauth/access_token')
      .describe("GitHub's token endpoint."),
    KAIROS_GITHUB_API_URL: z.url().default('https://api.github.com').describe("GitHub's API."),
    /** Email of the local admin account created when no identity provider is configured. */
    KAIROS_ADMIN_EMAIL: z
      .string()
      .regex(/^[^\s@]+@[^\s@]+$/, 'must be an email address')
      .default('admin@localhost')
      .describe(
        'With no identity provider, this operator account gets a one-time sign-in link printed at start (15 minutes, single use).',
      ),
    NODE_ENV: z
      .string()
      .optional()
      .describe('`production` requires KAIROS_MASTER_KEY, KAIROS_PUBLIC_URL and KAIROS_METRICS_TOKEN.'),
    /**
     * SMTP server of email notification channels and invitation mails (the executors send; the api only
     * refuses to create an email channel while this is unset, and mails no invitation). Same value as the executors'.
     */
    KAIROS_SMTP_URL: z
      .url()
      .optional()
      .describe(
        "SMTP server of email notification channels and invitation mails (`smtp://user:pass@host:587`); unset: email channels are refused (409) and invitations are not mailed. The same value as the executors'.",
      ),
    /**
     * The web UI's built files (services/web/dist). Unset: the bundle beside this service; empty: the
     * api serves no UI (API-only deployments). A folder without index.html also serves no UI.
     */
    KAIROS_WEB_DIR: z
      .string()
      .optional()
      .describe("The web UI's built files. Unset: the bundled `services/web/dist`; empty: the api serves no UI."),
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
          parseMasterKeys(value);
          return true;
        } catch {
          return false;
        }
      }, 'must be 64 hexadecimal characters or base64 of 32 bytes (generate one with: openssl rand -hex 32), or id:key,id:key')
      .describe(
        'Encrypts signing keys and shared secrets at rest (AES-256-GCM): 64 hex characters or base64 of 32 bytes, or `id:key` pairs separated by commas, current first. Unset outside production: a development key in `.kairos/master.key`. Required when NODE_ENV=production (or KAIROS_MASTER_KEY_FILE).',
      ),
    KAIROS_MASTER_KEY_FILE: z
      .string()
      .optional()
      .describe(
        'A file of master keys: one key, or `id:key` lines, current first (docs/operations/master-key.md); wins over KAIROS_MASTER_KEY.',
      ),
  })
  .superRefine((config, ctx) => {
    if (config.NODE_ENV !== 'production') return;
    // Refused at start (exit 78), like a missing KAIROS_MASTER_KEY: each would be a silent weakness.
    if (!config.KAIROS_PUBLIC_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['KAIROS_PUBLIC_URL'],
        message:
          'is required in production: sign-in redirect URIs and device-flow links are built from it ' +
          "(without it they would follow each request's Host header, which the client writes)",
      });
    }
    if (!config.KAIROS_METRICS_TOKEN) {
      ctx.addIssue({
        code: 'custom',
        path: ['KAIROS_METRICS_TOKEN'],
        message:
          'is required in production: the api serves /metrics on its public port, and only this token closes it ' +
          '(16+ characters, e.g. openssl rand -hex 24)',
      });
    }
  });

/** The schema itself, for the configuration reference (scripts/config-reference.ts). */
export const apiConfigSchema = schema;

export type ApiConfig = z.infer<typeof schema>;

export const loadApiConfig = (env: NodeJS.ProcessEnv = process.env): ApiConfig => loadConfig(schema, env);

/** The operator CLI (cli/kairos.ts) reads only these, unvalidated: an api-only setting never stops it. */
const cliSchema = z.object({
  DATABASE_URL: z.string().default('postgresql://postgres@127.0.0.1:5432/kairos'),
  KAIROS_MASTER_KEY: z.string().optional(),
  KAIROS_MASTER_KEY_FILE: z.string().optional(),
  NODE_ENV: z.string().optional(),
  // login-link: the link must point at the running api (same defaults as the api's schema).
  KAIROS_ADMIN_EMAIL: z.string().default('admin@localhost'),
  KAIROS_PUBLIC_URL: z.string().optional(),
  PORT: z.string().default('3000'),
});

export type CliConfig = z.infer<typeof cliSchema>;

export const loadCliConfig = (env: NodeJS.ProcessEnv = process.env): CliConfig => loadConfig(cliSchema, env);

/** The OTEL_* settings main.ts needs before the service loads (packages/runtime/src/tracing.ts). */
export const loadTracingConfig = (env: NodeJS.ProcessEnv = process.env): TracingConfig =>
  loadConfig(tracingConfigSchema, env);
