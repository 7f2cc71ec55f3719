import type { Database } from '@kairos/db';
import type { Redis } from 'ioredis';
import type { ApiKeyAuthenticator } from '../auth/authenticate.js';
import type { ApiConfig } from '../config.js';
import type { Logger } from '@kairos/runtime';
import type { ScheduleNotifier } from '../schedule-notifier.js';
import type { TestRunner } from '../test-runner.js';

/** What route modules get: no globals, so tests build an app against their own database. */
export interface ApiDeps {
  config: ApiConfig;
  db: Database;
  redis: Redis;
  logger: Logger;
  notifier: ScheduleNotifier;
  apiKeys: ApiKeyAuthenticator;
  /** Runs "test now" executions through the executor pool (test-runs queue). */
  testRunner: TestRunner;
  /** Encrypts signing keys at rest (master-key.ts). */
  masterKey: Buffer;
  now: () => Date;
}
