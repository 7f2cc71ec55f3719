/**
 * Request headers cannot buy CPU time: a crafted Authorization or Host header is read in linear
 * time (before, `Bearer <15,000 spaces>a b` cost ~120 ms of the event loop per request, before the
 * rate limiter), and headers over the bound are refused by the HTTP server itself with 431 in the
 * API's error shape (the real server of startApi, on a real port).
 */
import { request as httpRequest } from 'node:http';
import { LIMITS } from '@kairos/core';
import { createApiHarness, startHarnessApi, type ApiHarness } from '../../../test/api.js';
import type { RunningApi } from '../src/server.js';

let harness: ApiHarness;

beforeAll(async () => {
  harness = await createApiHarness();
});
afterAll(() => harness.close());

/** The fastest of three runs, in ms (one may pay for compilation or a garbage collection). */
async function fastestMs(send: () => PromiseLike<{ status: number }>, expectedStatus: number): Promise<number> {
  let best = Infinity;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const startedAt = performance.now();
    const response = await send();
    best = Math.min(best, performance.now() - startedAt);
    expect(response.status).toBe(expectedStatus);
  }
  return best;
}

describe('crafted headers answer as fast as ordinary ones', () => {
  beforeAll(async () => {
    await harness.http.post('/api/auth/device/code').send({}); // the first request pays for loading the routes
  });

  // Within 50 ms of the same request with an ordinary header: the route's own work (a database
  // write for a device code) varies with the machine's load, the difference does not.
  it('an Authorization header of spaces (Bearer <15,000 spaces>a b)', async () => {
    const send = (header: string) => () => harness.http.get('/api/jobs').set('authorization', header);
    const ordinaryMs = await fastestMs(send(`Bearer kat_${'a'.repeat(15_000)}`), 401);
    const craftedMs = await fastestMs(send(`Bearer ${' '.repeat(15_000)}a b`), 401);
    expect(craftedMs).toBeLessThan(ordinaryMs + 50);
  });

  it('a Host header of 15,000 slashes (the device flow builds its links from it)', async () => {
    const send = (host: string) => () => harness.http.post('/api/auth/device/code').set('host', host).send({});
    const ordinaryMs = await fastestMs(send(`${'a'.repeat(15_000)}.test`), 200);
    const craftedMs = await fastestMs(send(`${'/'.repeat(15_000)}x`), 200);
    expect(craftedMs).toBeLessThan(ordinaryMs + 50);
  });
});

describe('the header size bound', () => {
  let api: RunningApi;

  beforeAll(async () => {
    api = await startHarnessApi(harness, { KAIROS_WEB_DIR: '' });
  });
  afterAll(() => api.close());

  /** One GET with the given headers, over a fresh connection. */
  function get(path: string, headers: Record<string, string>) {
    return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const req = httpRequest(`${api.url}${path}`, { headers, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('refuses headers over 16 KiB with 431 HEADERS_TOO_LARGE in the API error shape', async () => {
    const response = await get('/api/jobs', { 'x-padding': 'a'.repeat(20 * 1024) });
    expect(response.status).toBe(431);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(JSON.parse(response.body)).toEqual({
      error: {
        code: 'HEADERS_TOO_LARGE',
        message: `request headers exceed ${LIMITS.requestHeadersMaxBytes} bytes`,
        details: { limitBytes: LIMITS.requestHeadersMaxBytes },
      },
    });
  });

  it('serves requests whose headers fit', async () => {
    const response = await get('/healthz', { 'x-padding': 'a'.repeat(12 * 1024) });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ status: 'ok' });
  });

  it('answers a malformed request with 400 in the API error shape', async () => {
    const { connect } = await import('node:net');
    const { port } = new URL(api.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost x\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toContain('"code":"VALIDATION_ERROR"');
  });
});
