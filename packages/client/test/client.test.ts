/**
 * @kairos/client against a real api on 127.0.0.1 (its own HTTP server): paging that follows the
 * Link header, errors as values carrying the API's code, and 429s retried after Retry-After within
 * a bound: against the api's real tier limit, and against a server that answers a set sequence.
 */
import {
  KairosApiError,
  apiKeyCredentials,
  createKairosClient,
  listAll,
  pages,
  parseLinkHeader,
  settle,
  unwrap,
  type KairosClient,
} from '@kairos/client';
import { createApiHarness, startHarnessApi, type ApiHarness } from '../../../test/api.js';
import { closedPort, startTestServer } from '../../../test/test-server.js';

let harness: ApiHarness;
let running: Awaited<ReturnType<typeof startHarnessApi>>;
let kairos: KairosClient;

beforeAll(async () => {
  harness = await createApiHarness();
  running = await startHarnessApi(harness);
  const account = await harness.createAccount();
  kairos = createKairosClient({ baseUrl: running.url, credentials: apiKeyCredentials(account.apiKey) });
});
afterAll(async () => {
  await running.close();
  await harness.close();
});

describe('paging', () => {
  it('reads every item once by following the Link header, filters kept', async () => {
    for (let i = 0; i < 5; i += 1) await unwrap(kairos.POST('/api/jobs', { body: { name: `job ${i}` } }));
    const paused = await unwrap(kairos.POST('/api/jobs', { body: { name: 'paused one' } }));
    await unwrap(kairos.POST('/api/jobs/{jobId}/pause', { params: { path: { jobId: paused.id } } }));

    const seen: { offset: number | null; count: number; total: number }[] = [];
    for await (const page of pages((paging) => kairos.GET('/api/jobs', { params: { query: paging } }), { limit: 2 })) {
      seen.push({ offset: page.next?.offset ?? null, count: page.items.length, total: page.total });
    }
    expect(seen).toEqual([
      { offset: 2, count: 2, total: 6 },
      { offset: 4, count: 2, total: 6 },
      { offset: null, count: 2, total: 6 },
    ]);
    const active = await listAll(
      (paging) => kairos.GET('/api/jobs', { params: { query: { ...paging, status: 'active' } } }),
      {
        limit: 2,
      },
    );
    expect(active.map((job) => job.name).sort()).toEqual(['job 0', 'job 1', 'job 2', 'job 3', 'job 4']);
  });

  it('parses RFC 8288 relations', () => {
    expect(
      parseLinkHeader('</api/jobs?limit=2&offset=0>; rel="first", </api/jobs?limit=2&offset=2>; rel="next"'),
    ).toEqual({ first: '/api/jobs?limit=2&offset=0', next: '/api/jobs?limit=2&offset=2' });
    expect(parseLinkHeader(null)).toEqual({});
  });
});

describe('errors', () => {
  it("throws, or settles to, a KairosApiError carrying the API's code, status and issues", async () => {
    const missing = await unwrap(
      kairos.GET('/api/jobs/{jobId}', { params: { path: { jobId: '0198c0de-0000-7000-8000-00000000000a' } } }),
    ).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(KairosApiError);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', status: 404 });

    const invalid = await settle(kairos.POST('/api/jobs', { body: { name: '' } }));
    expect(invalid.ok).toBe(false);
    if (invalid.ok) return;
    expect(invalid.error).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect(invalid.error.fieldErrors()).toEqual({ name: expect.any(String) });

    const anonymous = createKairosClient({ baseUrl: running.url });
    await expect(unwrap(anonymous.GET('/api/jobs'))).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });

    const nowhere = createKairosClient({ baseUrl: `http://127.0.0.1:${await closedPort()}`, retry: false });
    await expect(unwrap(nowhere.GET('/api/jobs'))).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: null });
  });
});

describe('429', () => {
  it("retries after the api's own Retry-After until its tier limit lets the request through", async () => {
    const tier = await createApiHarness({ limits: 'tier' });
    const api = await startHarnessApi(tier);
    try {
      const account = await tier.createAccount();
      const statuses: number[] = [];
      const waits: number[] = [];
      const client = createKairosClient({
        baseUrl: api.url,
        credentials: apiKeyCredentials(account.apiKey),
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          statuses.push(response.status);
          return response;
        },
        sleep: (ms) => {
          waits.push(ms);
          return new Promise((resolve) => setTimeout(resolve, ms));
        },
      });
      // Free: a burst of 10, then one a second. 12 calls: the last ones wait for the bucket.
      for (let i = 0; i < 12; i += 1) await unwrap(client.GET('/api/jobs'));
      expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
      expect(statuses.filter((status) => status === 200)).toHaveLength(12);
      for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(1000);
    } finally {
      await api.close();
      await tier.close();
    }
  });

  it('honours Retry-After in seconds and as a date, and answers a longer wait or a fourth 429 at once', async () => {
    const answers: { status: number; retryAfter?: string }[] = [];
    const server = await startTestServer((_req, res) => {
      const next = answers.shift() ?? { status: 200 };
      res.writeHead(next.status, {
        'content-type': 'application/json',
        ...(next.retryAfter ? { 'retry-after': next.retryAfter } : {}),
      });
      res.end(JSON.stringify(next.status === 200 ? [] : { error: { code: 'RATE_LIMITED', message: 'slow down' } }));
    });
    const waits: number[] = [];
    const client = createKairosClient({
      baseUrl: server.origin,
      credentials: apiKeyCredentials('kairos_test'),
      retry: { maxRetries: 3, maxWaitMs: 5000 },
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    try {
      answers.push(
        { status: 429, retryAfter: '2' },
        { status: 429, retryAfter: new Date(Date.now() + 3000).toUTCString() },
      );
      await expect(unwrap(client.GET('/api/jobs'))).resolves.toEqual([]);
      expect(waits[0]).toBe(2000);
      expect(waits[1]).toBeGreaterThan(1000);
      expect(waits[1]).toBeLessThanOrEqual(3000);
      expect(server.requests.map((request) => request.headers['x-api-key'])).toEqual(Array(3).fill('kairos_test'));

      waits.length = 0;
      answers.push({ status: 429, retryAfter: '60' });
      await expect(unwrap(client.GET('/api/jobs'))).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429 });
      expect(waits).toEqual([]);

      answers.push(...Array.from({ length: 4 }, () => ({ status: 429, retryAfter: '1' })));
      await expect(unwrap(client.GET('/api/jobs'))).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      expect(waits).toEqual([1000, 1000, 1000]);
    } finally {
      await server.close();
    }
  });
});
