import { randomBytes } from 'node:crypto';
import { createLogger } from '@kairos/runtime';
import request from 'supertest';
import { createApiHarness, type ApiHarness } from '../../../test/api.js';
import { REDIS_URL } from '../../../test/env.mjs';
import { createApp } from '../src/app.js';
import { ApiKeyAuthenticator } from '../src/auth/authenticate.js';
import { loadApiConfig } from '../src/config.js';

let harness: ApiHarness;

beforeAll(async () => {
  harness = await createApiHarness({ limits: 'tier' });
});
afterAll(() => harness.close());

/** Fires `count` requests at once; statuses and how long the burst took. */
async function burst<R extends { status: number }>(send: () => PromiseLike<R>, count: number) {
  const startedAt = Date.now();
  const responses = await Promise.all(Array.from({ length: count }, send));
  const elapsedSec = (Date.now() - startedAt) / 1000;
  return {
    ok: responses.filter((response) => response.status < 400).length,
    limited: responses.filter((response) => response.status === 429).length,
    elapsedSec,
    responses,
  };
}

/** A second api process on the same Redis and database (another replica: empty caches). */
function secondReplica() {
  const logger = createLogger('replica-2', 'error');
  logger.silent = true;
  const { app } = createApp({
    config: loadApiConfig({
      DATABASE_URL: harness.database.url,
      REDIS_URL,
      KAIROS_QUEUE_PREFIX: harness.queuePrefix,
    } as NodeJS.ProcessEnv),
    db: harness.db,
    redis: harness.redis,
    logger,
    notifier: { notify: async () => undefined, close: async () => undefined },
    apiKeys: new ApiKeyAuthenticator(harness.db, 0),
    testNow: { run: async () => Promise.reject(new Error('no executor')), close: async () => undefined },
    masterKey: harness.masterKey,
    now: () => new Date(),
  });
  return request(app);
}

describe('rate limits per account', () => {
  it('Free: a burst of 10 passes, then 429 RATE_LIMITED with Retry-After; headers on every response', async () => {
    const { apiKey } = await harness.createAccount({ tier: 'free' });
    const first = await harness.http.get('/api/jobs').set('x-api-key', apiKey);
    expect(first.headers['x-ratelimit-limit']).toBe('60');
    expect(Number(first.headers['x-ratelimit-remaining'])).toBe(9);
    const reset = Number(first.headers['x-ratelimit-reset']);
    const nowSec = Date.now() / 1000;
    expect(reset).toBeGreaterThanOrEqual(Math.floor(nowSec));
    expect(reset).toBeLessThanOrEqual(Math.ceil(nowSec) + 2); // one token back within ~1 s

    const result = await burst(() => harness.http.get('/api/jobs').set('x-api-key', apiKey), 25);
    // 9 tokens were left; at most one more per second of burst comes back (generous: slow machine).
    expect(result.ok).toBeGreaterThanOrEqual(9);
    expect(result.ok).toBeLessThanOrEqual(9 + Math.ceil(result.elapsedSec) + 1);
    expect(result.limited).toBe(25 - result.ok);
    const refused = result.responses.find((response) => response.status === 429)!;
    expect(refused.body.error).toMatchObject({ code: 'RATE_LIMITED' });
    expect(refused.body.error.details).toMatchObject({ limit: 60 });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(2);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');

    // Errors count and carry the headers too.
    const missing = await harness.http.get('/api/jobs/not-an-id').set('x-api-key', apiKey);
    expect(missing.headers['x-ratelimit-limit']).toBe('60');
  });

  it('refills at the per-minute rate: a token is back after about a second', async () => {
    const { apiKey } = await harness.createAccount({ tier: 'free' });
    await burst(() => harness.http.get('/api/jobs').set('x-api-key', apiKey), 12);
    const refused = await harness.http.get('/api/jobs').set('x-api-key', apiKey);
    expect(refused.status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, Number(refused.headers['retry-after']) * 1000 + 100));
    expect((await harness.http.get('/api/jobs').set('x-api-key', apiKey)).status).toBe(200);
  });

  it('Pro: 300 per minute, burst 50', async () => {
    const { apiKey } = await harness.createAccount({ tier: 'pro' });
    const first = await harness.http.get('/api/jobs').set('x-api-key', apiKey);
    expect(first.headers['x-ratelimit-limit']).toBe('300');
    expect(first.headers['x-ratelimit-remaining']).toBe('49');
  });

  it('Enterprise: limits from quotaOverrides', async () => {
    const { apiKey, accountId } = await harness.createAccount({ tier: 'enterprise' });
    await harness.db.prisma.account.update({
      where: { id: accountId },
      data: { quotaOverrides: { requestsPerMinute: 30, burst: 3 } },
    });
    const result = await burst(() => harness.http.get('/api/jobs').set('x-api-key', apiKey), 8);
    expect(result.responses[0]!.headers['x-ratelimit-limit']).toBe('30');
    expect(result.ok).toBeGreaterThanOrEqual(3);
    expect(result.ok).toBeLessThanOrEqual(3 + Math.ceil(result.elapsedSec / 2) + 1);
    expect(result.limited).toBeGreaterThan(0);
  });

  it('is shared by every key of the account and across api replicas (Redis)', async () => {
    const account = await harness.createAccount({ tier: 'free' });
    const other = (await harness.client(account.apiKey).post('/api/api-keys', { name: 'second' })).body.apiKey;
    const replica = secondReplica();
    let sent = 0;
    const result = await burst(() => {
      sent += 1;
      return sent % 2 === 0
        ? replica.get('/api/jobs').set('x-api-key', other)
        : harness.http.get('/api/jobs').set('x-api-key', account.apiKey);
    }, 24);
    // One bucket of 10 (one token went to creating the key) across both keys and both replicas.
    expect(result.ok).toBeGreaterThanOrEqual(9);
    expect(result.ok).toBeLessThanOrEqual(9 + Math.ceil(result.elapsedSec) + 1);
  });
});

describe('rate limits without credentials (per IP)', () => {
  it('limits anonymous requests more loosely, counting refused credentials too', async () => {
    const first = await harness.http.get('/api/auth/providers');
    expect(first.headers['x-ratelimit-limit']).toBe('120');
    const wrongKey = await harness.http.get('/api/jobs').set('x-api-key', `kairos_${randomBytes(8).toString('hex')}`);
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.headers['x-ratelimit-limit']).toBe('120');

    const result = await burst(() => harness.http.post('/api/auth/device/token').send({ device_code: 'x' }), 45);
    // Every poll of an unknown code is an OAuth error (400) until the IP's burst of 30 is spent
    // (3 tokens went to the requests above, and 2 come back per second).
    const passed = result.responses.filter((response) => response.status === 400).length;
    expect(passed).toBeGreaterThanOrEqual(27);
    expect(passed).toBeLessThanOrEqual(27 + Math.ceil(result.elapsedSec * 2) + 1);
    expect(result.limited).toBe(45 - passed);
  });

  it('never limits the probes', async () => {
    const probes = await burst(() => harness.http.get('/healthz'), 40);
    expect(probes.ok).toBe(40);
    expect(probes.responses[0]!.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('Bull Board (/admin/queues)', () => {
  let own: ApiHarness;
  beforeAll(async () => {
    own = await createApiHarness({ limits: 'tier' }); // its own prefix: a fresh per-IP bucket
  });
  afterAll(() => own.close());

  it('counts against the caller like the API: guessing at it is limited too', async () => {
    const result = await burst(() => own.http.get('/admin/queues'), 40);
    // 401 until the address's burst of 30 is spent (one token went to the harness's GET /api/doc,
    // and 2 come back per second), then 429.
    const refused = result.responses.filter((response) => response.status === 401).length;
    expect(refused).toBeGreaterThanOrEqual(29);
    expect(refused).toBeLessThanOrEqual(29 + Math.ceil(result.elapsedSec * 2) + 1);
    expect(result.limited).toBe(40 - refused);
    expect(result.responses[0]!.headers['x-ratelimit-limit']).toBe('120');
  });

  it("gives an operator a bucket of its own: a page load's 14+ requests pass on a Free account", async () => {
    const operator = await own.createAccount({ tier: 'free', operator: true });
    const result = await burst(
      () => own.http.get('/admin/queues/static/favicon-32x32.png').set('x-api-key', operator.apiKey),
      20,
    );
    expect(result.limited).toBe(0);
    expect(result.responses.every((response) => response.status === 200)).toBe(true);
    expect(result.responses[0]!.headers['x-ratelimit-limit']).toBe('300');
    // The account's own API bucket is untouched.
    const api = await own.http.get('/api/jobs').set('x-api-key', operator.apiKey);
    expect(api.headers['x-ratelimit-remaining']).toBe('9');
  });
});
