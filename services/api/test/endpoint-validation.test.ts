import { createApiHarness, endpointInput, type ApiClient, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
let api: ApiClient;
let jobId: string;

beforeAll(async () => {
  harness = await createApiHarness();
  api = harness.client((await harness.createAccount()).apiKey);
  jobId = (await api.post('/api/jobs', { name: 'Validation' })).body.id;
});
afterAll(() => harness.close());

const cases: [string, Record<string, unknown>, string][] = [
  ['no baseline', { baselineIntervalMs: undefined }, 'baselineIntervalMs'],
  ['both baselines', { baselineCron: '* * * * *' }, 'baselineCron'],
  ['interval below 1000 ms', { baselineIntervalMs: 999 }, 'baselineIntervalMs'],
  ['fractional interval', { baselineIntervalMs: 1500.5 }, 'baselineIntervalMs'],
  ['interval as a string', { baselineIntervalMs: '60000' }, 'baselineIntervalMs'],
  ['interval beyond 32 bits', { baselineIntervalMs: 2 ** 31 }, 'baselineIntervalMs'],
  ['invalid cron', { baselineIntervalMs: undefined, baselineCron: 'every day' }, 'baselineCron'],
  ['cron with an out-of-range field', { baselineIntervalMs: undefined, baselineCron: '61 * * * *' }, 'baselineCron'],
  ['unknown time zone', { timezone: 'Mars/Olympus' }, 'timezone'],
  ['min above max', { minIntervalMs: 10000, maxIntervalMs: 5000, baselineIntervalMs: 7000 }, 'minIntervalMs'],
  ['min below 1000', { minIntervalMs: 500 }, 'minIntervalMs'],
  ['baseline below min', { minIntervalMs: 120000 }, 'baselineIntervalMs'],
  ['baseline above max', { maxIntervalMs: 30000 }, 'baselineIntervalMs'],
  ['method outside the enum', { method: 'HEAD' }, 'method'],
  ['missed-runs policy outside the enum', { missedRuns: 'sometimes' }, 'missedRuns'],
  ['missing method', { method: undefined }, 'method'],
  ['missing url', { url: undefined }, 'url'],
  ['missing name', { name: undefined }, 'name'],
  ['relative url', { url: '/orders' }, 'url'],
  ['ftp url', { url: 'ftp://example.com/file' }, 'url'],
  ['javascript url', { url: 'javascript:alert(1)' }, 'url'],
  ['credentials in url', { url: 'https://user:pass@example.com/' }, 'url'],
  ['overlong url', { url: `https://example.com/${'a'.repeat(2048)}` }, 'url'],
  ['invalid header name', { headersJson: { 'Bad Header': 'x' } }, 'headersJson.Bad Header'],
  ['header value with a line break', { headersJson: { 'X-Ok': 'a\r\nInjected: yes' } }, 'headersJson.X-Ok'],
  ['non-string header value', { headersJson: { 'X-Num': 5 } }, 'headersJson.X-Num'],
  [
    'reserved signing header',
    { headersJson: { 'X-Service-Signature': 'sha256=forged' } },
    'headersJson.X-Service-Signature',
  ],
  ['reserved host header', { headersJson: { Host: 'evil.example' } }, 'headersJson.Host'],
  ['duplicate header names', { headersJson: { 'X-A': '1', 'x-a': '2' } }, 'headersJson.x-a'],
  ['body on GET', { bodyJson: { a: 1 } }, 'bodyJson'],
  ['body on DELETE', { method: 'DELETE', body: 'x' }, 'bodyJson'],
  ['body as a number', { method: 'POST', bodyJson: 5 }, 'bodyJson'],
  ['oversized body', { method: 'POST', bodyJson: 'x'.repeat(64 * 1024 + 1) }, 'bodyJson'],
  ['both header spellings', { headersJson: { 'X-A': '1' }, headers: { 'X-A': '2' } }, 'headersJson'],
  ['timeout too small', { timeoutMs: 50 }, 'timeoutMs'],
  ['timeout too large', { timeoutMs: 300001 }, 'timeoutMs'],
  ['response size zero', { maxResponseSizeKb: 0 }, 'maxResponseSizeKb'],
  ['response size too large', { maxResponseSizeKb: 1025 }, 'maxResponseSizeKb'],
  ['overlong name', { name: 'n'.repeat(201) }, 'name'],
  ['overlong description', { description: 'd'.repeat(4001) }, 'description'],
  ['unknown field', { colour: 'blue' }, 'colour'],
  ['read-only field', { failureCount: 3 }, 'failureCount'],
];

describe('endpoint validation', () => {
  it.each(cases)('rejects %s', async (_name, overrides, field) => {
    const input = endpointInput(overrides);
    for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete input[key];
    const response = await api.post(`/api/jobs/${jobId}/endpoints`, input);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details.field).toBe(field);
    expect(typeof response.body.error.message).toBe('string');
    expect(response.body.error.details.issues.length).toBeGreaterThan(0);
  });

  it('says which field and why for the interval floor (the documented example)', async () => {
    const response = await api.post(`/api/jobs/${jobId}/endpoints`, endpointInput({ baselineIntervalMs: 500 }));
    expect(response.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field: 'baselineIntervalMs' },
    });
    expect(response.body.error.message).toMatch(/1000 ms/);
  });

  it('accepts the edges of every range', async () => {
    const response = await api.post(
      `/api/jobs/${jobId}/endpoints`,
      endpointInput({
        method: 'patch',
        baselineIntervalMs: 1000,
        minIntervalMs: 1000,
        maxIntervalMs: 2147483647,
        timeoutMs: 100,
        maxResponseSizeKb: 1024,
        bodyJson: 'x'.repeat(64 * 1024),
        headersJson: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`X-H${i}`, 'v'])),
      }),
    );
    expect(response.status).toBe(201);
  });

  it('stores nothing when validation fails', async () => {
    const before = await harness.db.prisma.endpoint.count();
    await api.post(`/api/jobs/${jobId}/endpoints`, endpointInput({ baselineIntervalMs: 10 }));
    expect(await harness.db.prisma.endpoint.count()).toBe(before);
  });
});
