import type { Database } from '@kairos/db';
import type { RedisConnection } from '@kairos/queue';
import type { AccessTokenAuthenticator, ApiKeyAuthenticator } from '../auth/authenticate.js';
import type { IdentityProvider } from '../auth/providers.js';
import type { AccountLimits } from '../quotas.js';
import type { RateLimiter } from '../rate-limit.js';
import type { ApiConfig } from '../config.js';
import type { Logger } from '@kairos/runtime';
import type { ScheduleNotifier } from '../schedule-notifier.js';
import type { TestNow } from '../test-now.js';
import type { ManualRuns } from '../manual-runs.js';

/** What route modules get: no globals, so tests build an app against their own database. */
export interface ApiDeps {
  config: ApiConfig;
  db: Database;
  redis: RedisConnection;
  logger: Logger;
  notifier: ScheduleNotifier;
  apiKeys: ApiKeyAuthenticator;
  /** Runs "test now" executions through the executor pool (test-runs queue). */
  testNow: TestNow;
  /** Run now, replay and backfill runs for the executor pool (manual-runs queue). */
  manualRuns: ManualRuns;
  /** Encrypts signing keys at rest (master-key.ts). */
  masterKey: Buffer;
  now: () => Date;
  /** `Authorization: Bearer` tokens of the device flow (revocation evicts from its cache). */
  accessTokens: AccessTokenAuthenticator;
  /** Tier limits with the account's quota overrides (quotas.ts). */
  accountLimits: AccountLimits;
  /** Per-account / per-IP request limits shared through Redis (rate-limit.ts). */
  rateLimiter: RateLimiter;
  /** Configured web sign-in providers (OIDC, GitHub); none → the local admin sign-in link. */
  identityProviders: IdentityProvider[];
}

type DefaultedDeps = 'accessTokens' | 'accountLimits' | 'rateLimiter' | 'identityProviders' | 'manualRuns';

/** What createApp takes: the identity and limit pieces default from config, db and redis. */
export type ApiDepsInput = Omit<ApiDeps, DefaultedDeps> & Partial<Pick<ApiDeps, DefaultedDeps>>;
