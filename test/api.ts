/**
 * Builds a real api app for a test file: its own cloned database, the machine's Redis under a
 * unique queue prefix, real HTTP through supertest. Call `close()` in afterAll.
 */
import { randomBytes } from 'node:crypto';
import { newId } from '@kairos/core';
import { createDatabase, type Database, type Tier } from '@kairos/db';
import { createAccount } from '@kairos/db/system';
import { createRedisConnection } from '@kairos/queue';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { createApp } from '../services/api/src/app.js';
import { ApiKeyAuthenticator } from '../services/api/src/auth/authenticate.js';
import { AccountLimits, UNLIMITED } from '../services/api/src/quotas.js';
import { RateLimiter } from '../services/api/src/rate-limit.js';
import { loadApiConfig } from '../services/api/src/config.js';
import { startApi, type RunningApi } from '../services/api/src/server.js';
import { createLogger, type Logger } from '@kairos/runtime';
import { createScheduleNotifier } from '../services/api/src/schedule-notifier.js';
import { createTestNow } from '../services/api/src/test-now.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { REDIS_URL } from './env.mjs';
import { createContractChecker } from './openapi.js';

export interface TestAccount {
  accountId: string;
  userId: string;
  apiKey: string;
  apiKeyId: string;
}

export interface ApiResponse {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Record<string, string>;
}

export type ApiMethod = 'get' | 'delete' | 'post' | 'patch' | 'put';

export interface ApiClient {
  /** Any method by name, as the methods below (a body only with post, patch and put). */
  request(method: ApiMethod, path: string, body?: unknown): Promise<ApiResponse>;
  get(path: string): Promise<ApiResponse>;
  delete(path: string): Promise<ApiResponse>;
  post(path: string, body?: unknown): Promise<ApiResponse>;
  patch(path: string, body?: unknown): Promise<ApiResponse>;
  put(path: string, body?: unknown): Promise<ApiResponse>;
}

export interface ApiHarness {
  http: ReturnType<typeof request>;
  /** The express app (to serve it on a real port, e.g. for sign-in redirects). */
  app: ReturnType<typeof createApp>['app'];
  db: Database;
  redis: Redis;
  queuePrefix: string;
  database: TestDatabase;
  routes: ReturnType<typeof createApp>['routes'];
  /** The master key signing keys are encrypted under (random per harness). */
  masterKey: Buffer;
  /** The api's logger (silent; spy on it to see what the api logs). */
  logger: Logger;
  createAccount(options?: { tier?: Tier; email?: string; operator?: boolean }): Promise<TestAccount>;
  /** A client whose every response is checked against /api/doc (status listed, body matches). */
  client(apiKey: string): ApiClient;
  /** The same with `Authorization: Bearer <accessToken>` (device-flow tokens). */
  bearerClient(accessToken: string): ApiClient;
  close(): Promise<void>;
}

export interface ApiHarnessOptions {
  now?: () => Date;
  /** Added to an endpoint's timeoutMs while a test run waits for an executor (default 10 s). */
  testRunGraceMs?: number;
  /**
   * 'relaxed' (default): no quota refuses and rate limits are so high nothing is throttled (the
   * X-RateLimit-* headers are still sent). 'tier': the real tier limits, quotas and per-IP limit.
   */
  limits?: 'relaxed' | 'tier';
  /** Extra api configuration (e.g. KAIROS_OIDC_ISSUER, KAIROS_PUBLIC_URL). */
  env?: Record<string, string>;
  /** The master key (default: a random one); e.g. named keys (masterKeyRing). */
  masterKey?: Buffer;
}

export async function createApiHarness(options: ApiHarnessOptions = {}): Promise<ApiHarness> {
  const database = await createTestDatabase();
  const db = createDatabase({ url: database.url, poolMax: 4 });
  const redis = createRedisConnection(REDIS_URL);
  const queuePrefix = `{kairos-test-${randomBytes(4).toString('hex')}}`;
  const config = loadApiConfig({
    DATABASE_URL: database.url,
    REDIS_URL,
    KAIROS_QUEUE_PREFIX: queuePrefix,
    KAIROS_WEB_DIR: '', // no UI unless a test asks for it (test/browser)
    ...options.env,
  } as NodeJS.ProcessEnv);
  const logger = createLogger('api-test', 'error');
  logger.silent = true;
  const notifier = createScheduleNotifier(db, redis, queuePrefix, () => undefined);
  const apiKeys = new ApiKeyAuthenticator(db, 10_000);
  const masterKey = options.masterKey ?? randomBytes(32);
  const testNow = createTestNow({
    connection: redis,
    eventsConnection: createRedisConnection(REDIS_URL),
    prefix: queuePrefix,
    ...(options.testRunGraceMs !== undefined ? { graceMs: options.testRunGraceMs } : {}),
  });
  const relaxed = (options.limits ?? 'relaxed') === 'relaxed';
  const accountLimits = new AccountLimits(db, relaxed ? UNLIMITED : undefined);
  const rateLimiter = new RateLimiter({
    redis,
    prefix: queuePrefix,
    accountLimit: (accountId) => accountLimits.get(accountId),
    ...(relaxed ? { anonymousLimit: UNLIMITED } : {}),
  });
  const {
    app,
    routes,
    close: closeApp,
  } = createApp({
    config,
    db,
    redis,
    logger,
    notifier,
    apiKeys,
    testNow,
    masterKey,
    now: options.now ?? (() => new Date()),
    accountLimits,
    rateLimiter,
  });
  let accounts = 0;
  const http = request(app);
  const documentResponse = await http.get('/api/doc');
  const expectDocumented = createContractChecker(documentResponse.body);
  const send = async (method: ApiMethod, header: [string, string], path: string, body?: unknown) => {
    let pending = http[method](path).set(...header);
    if (body !== undefined) pending = pending.send(body as object);
    const response = await pending;
    expectDocumented(method, path, response.status, response.body);
    return { status: response.status, body: response.body, headers: response.headers as Record<string, string> };
  };
  const clientWith = (header: [string, string]): ApiClient => ({
    request: (method, path, body) =>
      send(method, header, path, method === 'get' || method === 'delete' ? undefined : body),
    get: (path) => send('get', header, path),
    delete: (path) => send('delete', header, path),
    post: (path, body) => send('post', header, path, body),
    patch: (path, body) => send('patch', header, path, body),
    put: (path, body) => send('put', header, path, body),
  });
  return {
    http,
    app,
    client: (apiKey) => clientWith(['x-api-key', apiKey]),
    bearerClient: (accessToken) => clientWith(['authorization', `Bearer ${accessToken}`]),
    db,
    redis,
    queuePrefix,
    database,
    routes,
    masterKey,
    logger,
    async createAccount({ tier = 'free', email, operator = false } = {}) {
      accounts += 1;
      const created = await createAccount(
        db,
        {
          email: email ?? `user${accounts}-${randomBytes(3).toString('hex')}@example.test`,
          // As an operator creates it (`kairos accounts create`): the address counts as verified.
          emailVerified: true,
          tier,
          operator,
          apiKeyName: 'test',
        },
        { masterKey },
      );
      return {
        accountId: created.account.id,
        userId: created.user.id,
        apiKey: created.apiKey!.raw,
        apiKeyId: created.apiKey!.record.id,
      };
    },
    async close() {
      await closeApp();
      await notifier.close();
      await testNow.close();
      const keys = await redis.keys(`${queuePrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      await db.close();
      await database.drop();
    },
  };
}

/**
 * The harness's database and queue prefix served by startApi itself (the api process's own HTTP
 * server, not supertest's) on 127.0.0.1 and a free port; `env` adds api settings. Close it before the harness.
 */
export async function startHarnessApi(harness: ApiHarness, env: Record<string, string> = {}): Promise<RunningApi> {
  const logger = createLogger('api-test', 'error');
  logger.silent = true;
  const config = loadApiConfig({
    DATABASE_URL: harness.database.url,
    REDIS_URL,
    KAIROS_QUEUE_PREFIX: harness.queuePrefix,
    PORT: '0',
    HOST: '127.0.0.1',
    ...env,
  } as NodeJS.ProcessEnv);
  return startApi(config, logger, harness.masterKey);
}

/** A valid endpoint input; override what a test is about. */
export const endpointInput = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'Check orders',
  url: 'https://example.com/orders/check',
  method: 'GET',
  baselineIntervalMs: 60_000,
  ...overrides,
});

/** One of each resource a route can name, by its path parameter (`:jobId`, `:runId`, …), with the device-flow access token. */
export interface RouteResources {
  ids: { jobId: string; endpointId: string; runId: string; sessionId: string; tokenId: string; channelId: string };
  accessToken: string;
}

/**
 * Creates, in the account, a job, an endpoint, a recorded run, an analysis session, an approved
 * device-flow token and a notification channel: what the tests that walk every route (route-matrix, fuzz) fill path parameters from.
 */
export async function createRouteResources(
  harness: ApiHarness,
  account: TestAccount,
  options: { jobName: string; endpointTimeoutMs: number; deviceClientName: string },
): Promise<RouteResources> {
  const api = harness.client(account.apiKey);
  const job = (await api.post('/api/jobs', { name: options.jobName })).body;
  const endpoint = (
    await api.post(`/api/jobs/${job.id}/endpoints`, endpointInput({ timeoutMs: options.endpointTimeoutMs }))
  ).body;
  const now = new Date();
  const run = await harness.db.prisma.run.create({
    data: {
      id: newId(),
      accountId: account.accountId,
      endpointId: endpoint.id,
      source: 'baseline-interval',
      status: 'success',
      scheduledAt: now,
      startedAt: now,
      completedAt: now,
      durationMs: 12,
      statusCode: 200,
    },
  });
  const session = await harness.db.prisma.analysisSession.create({
    data: { id: newId(), accountId: account.accountId, endpointId: endpoint.id, status: 'completed', toolsCalled: [] },
  });
  const code = (await harness.http.post('/api/auth/device/code').send({ client_name: options.deviceClientName })).body;
  await api.post('/api/auth/device/approve', { user_code: code.user_code });
  const accessToken = (await harness.http.post('/api/auth/device/token').send({ device_code: code.device_code })).body
    .access_token as string;
  const token = await harness.db.prisma.accessToken.findFirstOrThrow({ where: { accountId: account.accountId } });
  const channel = (
    await api.post('/api/notification-channels', {
      name: 'routes',
      type: 'webhook',
      url: 'https://hooks.test.invalid/',
    })
  ).body;
  return {
    ids: {
      jobId: job.id,
      endpointId: endpoint.id,
      runId: run.id,
      sessionId: session.id,
      tokenId: token.id,
      channelId: channel.id,
    },
    accessToken,
  };
}
