import { verifySignature } from '@kairos/core';
import { createHttpExecutor } from './http-call.js';
import { startTestServer } from '../../../../test/test-server.js';
import type { RecordedRequest, TestServer } from '../../../../test/test-server.js';
import type { ExecutionContext, HttpExecutor, HttpRequestSpec } from './types.js';

const SIGNING_KEY = 'c0ffee00112233445566778899aabbccddeeff00112233445566778899aabbcc';
const USER_AGENT = 'Kairos/1.0 (+https://kairos.example)';

function buildSpec(url: string, overrides: Partial<HttpRequestSpec> = {}): HttpRequestSpec {
  return { url, method: 'GET', headers: {}, body: null, timeoutMs: 2000, maxResponseSizeKb: 100, ...overrides };
}

function buildContext(overrides: Partial<ExecutionContext> = {}): ExecutionContext {
  return {
    runId: 'run_42',
    endpointId: 'end_7',
    scheduledAt: new Date('2026-11-21T10:00:00.000Z'),
    lastRunAt: new Date('2026-11-21T09:55:00.000Z'),
    signingKey: SIGNING_KEY,
    ...overrides,
  };
}

/** What a receiver does: verify over the raw body it received, against its own clock. */
function verifyAsReceiver(request: RecordedRequest): boolean {
  const signature = request.headers['x-service-signature'];
  const timestamp = Number(request.headers['x-service-timestamp']);
  if (typeof signature !== 'string') return false;
  return verifySignature(SIGNING_KEY, timestamp, request.body, signature, Math.floor(Date.now() / 1000));
}

describe('outbound headers, signing and templates', () => {
  let executor: HttpExecutor;
  let server: TestServer;

  beforeAll(async () => {
    executor = createHttpExecutor({
      egress: { allowPrivateTargets: false, allowCidrs: ['127.0.0.0/8'] },
      userAgent: USER_AGENT,
    });
    server = await startTestServer((req, res) => {
      if (req.url === '/see-other') {
        res.writeHead(303, { location: '/after' }).end();
        return;
      }
      res.writeHead(200).end('ok');
    });
  });

  afterAll(async () => {
    executor.close();
    await server.close();
  });

  beforeEach(() => {
    server.requests.length = 0;
  });

  it('signs a GET over the empty body and sends the run id and user agent', async () => {
    const before = Math.floor(Date.now() / 1000);
    const outcome = await executor.execute(buildSpec(`${server.origin}/hook`), buildContext());
    expect(outcome.status).toBe('success');
    const [request] = server.requests;
    expect(request!.body).toBe('');
    expect(request!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(Number(request!.headers['x-service-timestamp'])).toBeGreaterThanOrEqual(before);
    expect(request!.headers['x-service-run-id']).toBe('run_42');
    expect(request!.headers['user-agent']).toBe(USER_AGENT);
    expect(verifyAsReceiver(request!)).toBe(true);
  });

  it('substitutes templates in a JSON body, then signs the exact bytes sent', async () => {
    const body = {
      since: '{{lastRunAt}}',
      meta: { run: '{{runId}}', endpoint: '{{ endpointId }}', slot: '{{scheduledAt}}', tags: ['{{runId}}', 3] },
      untouched: '{{unknownToken}}',
      count: 1,
    };
    const outcome = await executor.execute(
      buildSpec(`${server.origin}/hook`, { method: 'POST', body }),
      buildContext(),
    );
    expect(outcome.status).toBe('success');
    const [request] = server.requests;
    expect(request!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request!.body)).toEqual({
      since: '2026-11-21T09:55:00.000Z',
      meta: { run: 'run_42', endpoint: 'end_7', slot: '2026-11-21T10:00:00.000Z', tags: ['run_42', 3] },
      untouched: '{{unknownToken}}',
      count: 1,
    });
    expect(verifyAsReceiver(request!)).toBe(true);
    expect(verifyAsReceiver({ ...request!, body: request!.body.replace('run_42', 'run_43') })).toBe(false);
  });

  it('substitutes templates in a string body and the URL query; {{now}} matches the signature timestamp', async () => {
    const spec = buildSpec(`${server.origin}/hook?since={{lastRunAt}}&at={{now}}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'text/plain' },
      body: 'run {{runId}} last {{lastRunAt}} now {{now}}',
    });
    await executor.execute(spec, buildContext({ lastRunAt: null }));
    const [request] = server.requests;
    const query = new URL(request!.url, 'http://x').searchParams;
    expect(query.get('since')).toBe('');
    const nowIso = query.get('at')!;
    expect(Math.floor(Date.parse(nowIso) / 1000)).toBe(Number(request!.headers['x-service-timestamp']));
    expect(request!.body).toBe(`run run_42 last  now ${nowIso}`);
    expect(request!.headers['content-type']).toBe('text/plain');
    expect(verifyAsReceiver(request!)).toBe(true);
  });

  it('sends no signature headers when the account has no signing key', async () => {
    await executor.execute(
      buildSpec(`${server.origin}/hook`, { method: 'POST', body: { a: 1 } }),
      buildContext({ signingKey: null }),
    );
    const [request] = server.requests;
    expect(request!.headers['x-service-signature']).toBeUndefined();
    expect(request!.headers['x-service-timestamp']).toBeUndefined();
    expect(request!.headers['x-service-run-id']).toBe('run_42');
    expect(request!.headers['user-agent']).toBe(USER_AGENT);
  });

  it('does not let user headers override the service headers', async () => {
    const headers = {
      'X-Service-Signature': 'sha256=forged',
      'x-service-timestamp': '1',
      'X-SERVICE-RUN-ID': 'run_forged',
      'User-Agent': 'evil/1.0',
      Host: 'internal.example',
      'Content-Length': '999',
      Connection: 'close',
      'Content-Type': 'application/vnd.custom+json',
      'X-Custom': 'kept',
    };
    const outcome = await executor.execute(
      buildSpec(`${server.origin}/hook`, { method: 'POST', headers, body: { a: 1 } }),
      buildContext(),
    );
    expect(outcome.status).toBe('success');
    const [request] = server.requests;
    expect(request!.headers['x-service-run-id']).toBe('run_42');
    expect(request!.headers['user-agent']).toBe(USER_AGENT);
    expect(request!.headers.host).toBe(`127.0.0.1:${server.port}`);
    expect(request!.headers['content-length']).toBe(String(Buffer.byteLength(request!.body)));
    expect(request!.headers['content-type']).toBe('application/vnd.custom+json');
    expect(request!.headers['x-custom']).toBe('kept');
    expect(verifyAsReceiver(request!)).toBe(true);
  });

  it('re-signs over the empty body when a 303 turns a POST into a GET', async () => {
    const outcome = await executor.execute(
      buildSpec(`${server.origin}/see-other`, { method: 'POST', body: { a: 1 } }),
      buildContext(),
    );
    expect(outcome).toMatchObject({ status: 'success', finalUrl: `${server.origin}/after` });
    const [post, get] = server.requests;
    expect(post!.method).toBe('POST');
    expect(verifyAsReceiver(post!)).toBe(true);
    expect(get).toMatchObject({ method: 'GET', body: '' });
    expect(verifyAsReceiver(get!)).toBe(true);
  });
});
