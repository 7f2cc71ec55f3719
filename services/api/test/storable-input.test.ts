/**
 * Input PostgreSQL cannot store (U+0000, lone surrogates) and input the router cannot
 * decode answer 400 VALIDATION_ERROR naming the field, and change nothing. On main these answered
 * 500 INTERNAL_ERROR.
 */
import zlib from 'node:zlib';
import { createApiHarness, endpointInput, type ApiClient, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
let api: ApiClient;
let apiKey: string;
let jobId: string;
let endpointId: string;

beforeAll(async () => {
  harness = await createApiHarness();
  apiKey = (await harness.createAccount()).apiKey;
  api = harness.client(apiKey);
  jobId = (await api.post('/api/jobs', { name: 'Storable' })).body.id;
  endpointId = (await api.post(`/api/jobs/${jobId}/endpoints`, endpointInput())).body.id;
});
afterAll(() => harness.close());

const patchCases: [string, Record<string, unknown>, string][] = [
  ['NUL in name', { name: '\u0000' }, 'name'],
  ['NUL inside description', { description: 'a\u0000b' }, 'description'],
  ['lone high surrogate in name', { name: 'x\uD800' }, 'name'],
  ['lone low surrogate in a header value', { headersJson: { 'X-A': '\uDC00' } }, 'headersJson.X-A'],
  ['NUL in a header name (an object key)', { headersJson: { 'X-\u0000': 'v' } }, 'headersJson.X-\uFFFD'],
  ['NUL deep in a JSON body', { method: 'POST', bodyJson: { a: [{ b: '\u0000' }] } }, 'bodyJson.a.0.b'],
];

describe('PATCH /api/jobs/:jobId/endpoints/:endpointId', () => {
  it.each(patchCases)('refuses %s with 400 naming the field, changing nothing', async (_name, patch, field) => {
    const before = await api.get(`/api/endpoints/${endpointId}`);
    const response = await api.patch(`/api/jobs/${jobId}/endpoints/${endpointId}`, patch);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details.field).toBe(field);
    expect((await api.get(`/api/endpoints/${endpointId}`)).body).toEqual(before.body);
  });
});

describe('other inputs', () => {
  it('refuses NUL in a hint reason (a text the planner reads back)', async () => {
    const response = await api.post(`/api/endpoints/${endpointId}/hints/interval`, {
      intervalMs: 120_000,
      ttlMinutes: 30,
      reason: 'r\u0000',
    });
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe('reason');
  });

  it('refuses NUL in a query value, naming the query parameter', async () => {
    const response = await harness.http.get(`/api/endpoints/${endpointId}/runs?status=%00`).set('x-api-key', apiKey);
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe('status');
  });

  it.each([
    ['%00', 'U+0000'],
    ['%FF', 'invalid UTF-8'],
    ['%ED%A0%80', 'an encoded lone surrogate'],
    ['%', 'a bare percent sign'],
  ])('refuses a path parameter %s (%s), naming it', async (segment) => {
    const response = await harness.http.get(`/api/jobs/${jobId}/endpoints/${segment}`).set('x-api-key', apiKey);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'endpointId' } });
  });

  it('answers 400 for a corrupt gzip body (was a bare 400 from body-parser, answered 500)', async () => {
    const response = await harness.http
      .post('/api/jobs')
      .set('x-api-key', apiKey)
      .set('content-type', 'application/json')
      .set('content-encoding', 'gzip')
      .serialize((bytes) => bytes) // as they are: superagent would serialise a Buffer as JSON
      .send(Buffer.from('not gzip'));
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    const valid = await harness.http
      .post('/api/jobs')
      .set('x-api-key', apiKey)
      .set('content-type', 'application/json')
      .set('content-encoding', 'gzip')
      .serialize((bytes) => bytes)
      .send(zlib.gzipSync(JSON.stringify({ name: 'zipped' })));
    expect(valid.status).toBe(201);
  });

  it('answers the device-token route in the OAuth shape (RFC 8628) for NUL and malformed JSON', async () => {
    for (const body of ['{"device_code":"a\\u0000"}', '{"device_code":', '{"device_code":5}']) {
      const response = await harness.http
        .post('/api/auth/device/token')
        .set('content-type', 'application/json')
        .send(body);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    }
  });

  it('still accepts U+FFFD and valid surrogate pairs', async () => {
    const response = await api.post('/api/jobs', { name: 'ok \uFFFD \uD83D\uDE00' });
    expect(response.status).toBe(201);
    expect(response.body.name).toBe('ok \uFFFD \uD83D\uDE00');
  });
});
