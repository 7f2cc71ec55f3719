/**
 * RFC 8288 Link headers on the paged lists: first / prev / next / last relative to the request,
 * filters kept, absent relations when there is no such page, absolute under KAIROS_PUBLIC_URL.
 */
import { LIMITS } from '@kairos/core';
import { createApiHarness, endpointInput, type ApiClient, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
let api: ApiClient;
let jobIds: string[];

/** rel → target of a Link header (throws on anything that is not `<uri>; rel="name"`). */
function parseLinks(header: string | undefined): Record<string, string> {
  if (header === undefined) return {};
  return Object.fromEntries(
    header.split(', ').map((part) => {
      const match = /^<([^>]+)>; rel="([a-z]+)"$/.exec(part);
      if (!match) throw new Error(`malformed link: ${part}`);
      return [match[2]!, match[1]!];
    }),
  );
}

const offsetOf = (href: string | undefined): number | null =>
  href === undefined ? null : Number(new URL(href, 'http://x').searchParams.get('offset'));

beforeAll(async () => {
  harness = await createApiHarness();
  api = harness.client((await harness.createAccount()).apiKey);
  jobIds = [];
  for (const name of ['j1', 'j2', 'j3', 'j4', 'j5']) jobIds.push((await api.post('/api/jobs', { name })).body.id);
  await api.post(`/api/jobs/${jobIds[0]}/pause`);
  await api.post(`/api/jobs/${jobIds[2]}/pause`);
});
afterAll(() => harness.close());

describe('Link header on paged lists', () => {
  it('links first, next and last from the first page, and no prev', async () => {
    const page = await api.get('/api/jobs?limit=2');
    expect(page.headers['x-total-count']).toBe('5');
    const links = parseLinks(page.headers.link);
    expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next']);
    expect(links.next).toBe('/api/jobs?limit=2&offset=2');
    expect(links.first).toBe('/api/jobs?limit=2&offset=0');
    expect(links.last).toBe('/api/jobs?limit=2&offset=4');
  });

  it('links prev and next from a middle page, prev and no next from the last', async () => {
    const middle = parseLinks((await api.get('/api/jobs?limit=2&offset=2')).headers.link);
    expect([offsetOf(middle.prev), offsetOf(middle.next), offsetOf(middle.last)]).toEqual([0, 4, 4]);
    const last = await api.get('/api/jobs?offset=4&limit=2');
    expect(last.body).toHaveLength(1);
    const lastLinks = parseLinks(last.headers.link);
    expect(Object.keys(lastLinks).sort()).toEqual(['first', 'last', 'prev']);
    expect(offsetOf(lastLinks.prev)).toBe(2);
  });

  it('reaches every item once by following next, from an offset off the grid too', async () => {
    const all = (await api.get('/api/jobs?limit=1000')).body.map((job: { id: string }) => job.id);
    expect([...all].sort()).toEqual([...jobIds].sort());
    for (const start of ['/api/jobs?limit=2', '/api/jobs?limit=2&offset=1']) {
      const seen: string[] = [];
      let next: string | undefined = start;
      for (let guard = 0; next !== undefined && guard < 10; guard += 1) {
        const page = await api.get(next);
        expect(page.status).toBe(200);
        seen.push(...page.body.map((job: { id: string }) => job.id));
        next = parseLinks(page.headers.link).next;
      }
      expect(next).toBeUndefined();
      expect(seen).toEqual(start.includes('offset=1') ? all.slice(1) : all);
    }
  });

  it('keeps the filters in every link', async () => {
    const paused = await api.get('/api/jobs?status=paused&limit=1');
    expect(paused.headers['x-total-count']).toBe('2');
    const next = parseLinks(paused.headers.link).next!;
    expect(new URL(next, 'http://x').searchParams.get('status')).toBe('paused');
    const second = await api.get(next);
    expect(second.body.map((job: { id: string }) => job.id)).toEqual([jobIds[0]]);
    expect(parseLinks(second.headers.link).next).toBeUndefined();

    const jobId = jobIds[1]!;
    for (const name of ['e1', 'e2', 'e3']) await api.post(`/api/jobs/${jobId}/endpoints`, endpointInput({ name }));
    const endpoints = await api.get(`/api/jobs/${jobId}/endpoints?includeArchived=true&limit=2`);
    const endpointLinks = parseLinks(endpoints.headers.link);
    expect(endpointLinks.next).toBe(`/api/jobs/${jobId}/endpoints?includeArchived=true&limit=2&offset=2`);
  });

  it('sends no Link header for an empty list, and refuses a limit above the maximum as before', async () => {
    const empty = harness.client((await harness.createAccount()).apiKey);
    const none = await empty.get('/api/jobs');
    expect(none.headers['x-total-count']).toBe('0');
    expect(none.headers.link).toBeUndefined();
    const past = await api.get('/api/jobs?offset=10&limit=2');
    expect(past.body).toEqual([]);
    const pastLinks = parseLinks(past.headers.link);
    expect(pastLinks.next).toBeUndefined();
    expect(offsetOf(pastLinks.prev)).toBe(3);

    const tooLarge = await api.get(`/api/jobs?limit=${LIMITS.listMaxLimit + 1}`);
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.error.code).toBe('VALIDATION_ERROR');
    expect(tooLarge.headers.link).toBeUndefined();
  });

  it('links the runs and analysis sessions of an endpoint and the audit log', async () => {
    const endpoint = (await api.post(`/api/jobs/${jobIds[3]}/endpoints`, endpointInput())).body;
    const sessions = await api.get(`/api/endpoints/${endpoint.id}/analysis-sessions`);
    expect(sessions.status).toBe(200);
    expect(sessions.headers.link).toBeUndefined();
    const runs = await api.get(`/api/endpoints/${endpoint.id}/runs?status=failed`);
    expect(runs.headers['x-total-count']).toBe('0');
    expect(runs.headers.link).toBeUndefined();
    const audit = await api.get('/api/audit-events?limit=1');
    expect(Number(audit.headers['x-total-count'])).toBeGreaterThan(1);
    expect(parseLinks(audit.headers.link).next).toBe('/api/audit-events?limit=1&offset=1');
  });

  it('documents Link on every operation that pages', async () => {
    const document = (await harness.http.get('/api/doc')).body;
    const paged = harness.routes.routes.filter(
      ({ spec }) => spec.query !== undefined && 'offset' in (spec.query as unknown as { shape: object }).shape,
    );
    expect(paged.map(({ spec }) => spec.operationId).sort()).toEqual([
      'adminListAccounts',
      'listAnalysisSessions',
      'listAuditEvents',
      'listEndpointRuns',
      'listEndpoints',
      'listJobs',
      'listNotificationChannels',
      'listNotifications',
    ]);
    for (const { spec } of paged) {
      const path = spec.path.replace(/:(\w+)/g, '{$1}');
      const headers = document.paths[path].get.responses['200'].headers;
      expect(Object.keys(headers)).toEqual(expect.arrayContaining(['X-Total-Count', 'Link']));
    }
    const llms = (await harness.http.get('/api/llms.txt')).text;
    const jobsSection = llms.slice(
      llms.indexOf('## GET /api/jobs\n'),
      llms.indexOf('## ', llms.indexOf('## GET /api/jobs\n') + 3),
    );
    expect(jobsSection).toContain('header `Link`: RFC 8288 links');
    expect(jobsSection).toContain('header `X-Total-Count`');
  });
});

describe('Link header under KAIROS_PUBLIC_URL', () => {
  let publicHarness: ApiHarness;
  afterAll(() => publicHarness?.close());

  it('answers absolute links on the public base URL', async () => {
    publicHarness = await createApiHarness({ env: { KAIROS_PUBLIC_URL: 'https://kairos.example.test/' } });
    const client = publicHarness.client((await publicHarness.createAccount()).apiKey);
    for (const name of ['a', 'b']) await client.post('/api/jobs', { name });
    const links = parseLinks((await client.get('/api/jobs?limit=1')).headers.link);
    expect(links.next).toBe('https://kairos.example.test/api/jobs?limit=1&offset=1');
  });
});
