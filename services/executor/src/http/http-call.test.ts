import { gzipSync } from 'node:zlib';
import { createHttpExecutor } from './http-call.js';
import { closedPort, startTestServer } from '../../../../test/test-server.js';
import type { TestServer } from '../../../../test/test-server.js';
import type { ExecutionContext, HttpExecutor, HttpRequestSpec } from './types.js';

const LOOPBACK_ALLOWED = { allowPrivateTargets: false, allowCidrs: ['127.0.0.0/8'] };

function buildSpec(url: string, overrides: Partial<HttpRequestSpec> = {}): HttpRequestSpec {
  return { url, method: 'GET', headers: {}, body: null, timeoutMs: 2000, maxResponseSizeKb: 100, ...overrides };
}

function buildContext(overrides: Partial<ExecutionContext> = {}): ExecutionContext {
  return {
    runId: 'run_1',
    endpointId: 'end_1',
    scheduledAt: new Date('2026-11-21T10:00:00.000Z'),
    lastRunAt: null,
    signingKey: null,
    ...overrides,
  };
}

describe('executeHttpRequest outcomes', () => {
  let executor: HttpExecutor;
  let server: TestServer;
  const trickleTimers = new Set<NodeJS.Timeout>();

  beforeAll(async () => {
    executor = createHttpExecutor({ egress: LOOPBACK_ALLOWED, userAgent: 'Kairos-Test/1.0' });
    server = await startTestServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      switch (path) {
        case '/json':
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"queue":{"depth":42}}');
          return;
        case '/text':
          res.writeHead(200, { 'content-type': 'text/plain' }).end('all good');
          return;
        case '/empty':
          res.writeHead(204).end();
          return;
        case '/redirect':
          res.writeHead(302, { location: '/json' }).end();
          return;
        case '/redirect-to-404':
          res.writeHead(301, { location: '/missing' }).end();
          return;
        case '/loop':
          res.writeHead(302, { location: '/loop' }).end();
          return;
        case '/unavailable':
          res.writeHead(503, { 'content-type': 'application/json' }).end('{"retryIn":30}');
          return;
        case '/never':
          return; // never answers
        case '/slow-hop': {
          const timer = setTimeout(() => res.writeHead(302, { location: '/slow-hop' }).end(), 200);
          trickleTimers.add(timer);
          return;
        }
        case '/trickle': {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('first;');
          const timer = setInterval(() => res.write('more;'), 50);
          trickleTimers.add(timer);
          res.on('close', () => clearInterval(timer));
          return;
        }
        case '/big-declared':
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 5000 }).end('x'.repeat(5000));
          return;
        case '/big-chunked-endless': {
          // 10 KiB in chunks, then the response never ends: only the size limit can stop the read.
          res.writeHead(200, { 'content-type': 'application/json' });
          for (let i = 0; i < 10; i += 1) res.write('['.repeat(1024));
          return;
        }
        case '/big-json':
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: 'é'.repeat(2000) }));
          return;
        case '/gzip-bomb': {
          const compressed = gzipSync(Buffer.alloc(1024 * 1024, 'a'));
          res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': compressed.length }).end(compressed);
          return;
        }
        case '/gzip-json':
          res
            .writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/json' })
            .end(gzipSync('{"ok":true}'));
          return;
        default:
          res.writeHead(404).end('not found');
      }
    });
  });

  afterAll(async () => {
    for (const timer of trickleTimers) clearTimeout(timer);
    executor.close();
    await server.close();
  });

  it('stores a 200 JSON body parsed', async () => {
    const outcome = await executor.execute(buildSpec(`${server.origin}/json`), buildContext());
    expect(outcome).toMatchObject({
      status: 'success',
      statusCode: 200,
      responseBody: { queue: { depth: 42 } },
      responseFormat: 'json',
      responseTruncated: false,
      responseSizeBytes: 22,
      errorKind: null,
      errorMessage: null,
      finalUrl: `${server.origin}/json`,
    });
    expect(outcome.completedAt.getTime() - outcome.startedAt.getTime()).toBe(outcome.durationMs);
  });

  // Found by pnpm test:images: got's stream waits for a request body that never came, so a
  // bodiless POST timed out with nothing sent (an endpoint's body is optional for every method).
  it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)('sends a %s without a body at once', async (method) => {
    const outcome = await executor.execute(buildSpec(`${server.origin}/json`, { method }), buildContext());
    expect(outcome).toMatchObject({ status: 'success', statusCode: 200, errorKind: null });
    expect(outcome.durationMs).toBeLessThan(1500);
  });

  it('reuses keep-alive connections across executions', async () => {
    const before = server.connectionCount();
    for (let i = 0; i < 3; i += 1) {
      expect(await executor.execute(buildSpec(`${server.origin}/json`), buildContext())).toMatchObject({
        status: 'success',
      });
    }
    expect(server.connectionCount() - before).toBeLessThanOrEqual(1);
  });

  it('stores a text body as text and an empty body as empty', async () => {
    const text = await executor.execute(buildSpec(`${server.origin}/text`), buildContext());
    expect(text).toMatchObject({ status: 'success', responseBody: 'all good', responseFormat: 'text' });
    const empty = await executor.execute(buildSpec(`${server.origin}/empty`), buildContext());
    expect(empty).toMatchObject({
      status: 'success',
      statusCode: 204,
      responseBody: null,
      responseFormat: 'empty',
      responseSizeBytes: 0,
    });
  });

  it('decompresses gzip bodies', async () => {
    const outcome = await executor.execute(buildSpec(`${server.origin}/gzip-json`), buildContext());
    expect(outcome).toMatchObject({ status: 'success', responseBody: { ok: true }, responseFormat: 'json' });
  });

  it('follows redirects; the final response decides', async () => {
    const followed = await executor.execute(buildSpec(`${server.origin}/redirect`), buildContext());
    expect(followed).toMatchObject({ status: 'success', statusCode: 200, finalUrl: `${server.origin}/json` });
    const toMissing = await executor.execute(buildSpec(`${server.origin}/redirect-to-404`), buildContext());
    expect(toMissing).toMatchObject({
      status: 'failed',
      statusCode: 404,
      errorKind: 'http_status',
      finalUrl: `${server.origin}/missing`,
    });
  });

  it('fails a redirect loop after maxRedirects', async () => {
    const outcome = await executor.execute(buildSpec(`${server.origin}/loop`), buildContext());
    expect(outcome).toMatchObject({ status: 'failed', statusCode: 302, errorKind: 'http_status' });
    expect(outcome.errorMessage).toBe('Too many redirects: more than 5 (maxRedirects)');
  });

  it.each([
    ['/missing', 404, 'HTTP 404 Not Found', 'not found'],
    ['/unavailable', 503, 'HTTP 503 Service Unavailable', { retryIn: 30 }],
  ])('fails %s with http_status and keeps the body', async (path, statusCode, message, body) => {
    const outcome = await executor.execute(buildSpec(`${server.origin}${path}`), buildContext());
    expect(outcome).toMatchObject({
      status: 'failed',
      statusCode,
      errorKind: 'http_status',
      errorMessage: message,
      responseBody: body,
    });
  });

  it('times out while waiting for the headers, within the deadline', async () => {
    const outcome = await executor.execute(buildSpec(`${server.origin}/never`, { timeoutMs: 300 }), buildContext());
    expect(outcome).toMatchObject({ status: 'failed', statusCode: null, errorKind: 'timeout', responseFormat: null });
    expect(outcome.errorMessage).toBe('Request timed out after 300 ms (timeoutMs) before the response headers arrived');
    expect(outcome.durationMs).toBeGreaterThanOrEqual(295);
    expect(outcome.durationMs).toBeLessThan(800);
  });

  it('times out while the body trickles in (the deadline covers the body)', async () => {
    const outcome = await executor.execute(buildSpec(`${server.origin}/trickle`, { timeoutMs: 400 }), buildContext());
    expect(outcome).toMatchObject({
      status: 'failed',
      statusCode: 200,
      errorKind: 'timeout',
      responseFormat: 'text',
      responseTruncated: true,
    });
    expect(outcome.errorMessage).toBe('Request timed out after 400 ms (timeoutMs) while reading the response body');
    expect(outcome.responseBody).toMatch(/^first;(more;)+$/);
    expect(outcome.durationMs).toBeLessThan(900);
  });

  it('counts redirect hops against one deadline', async () => {
    // Each hop answers after 200 ms; a per-hop timer of 500 ms would never fire.
    const outcome = await executor.execute(buildSpec(`${server.origin}/slow-hop`, { timeoutMs: 500 }), buildContext());
    expect(outcome).toMatchObject({ status: 'failed', errorKind: 'timeout' });
    expect(outcome.durationMs).toBeLessThan(1000);
  });

  it('reports a refused connection as a network failure', async () => {
    const port = await closedPort();
    const outcome = await executor.execute(buildSpec(`http://127.0.0.1:${port}/`), buildContext());
    expect(outcome).toMatchObject({
      status: 'failed',
      statusCode: null,
      errorKind: 'network',
      responseBody: null,
      responseSizeBytes: null,
    });
    expect(outcome.errorMessage).toMatch(/^Connection refused \(ECONNREFUSED\)/);
  });

  it('reports an unresolvable host as a network failure', async () => {
    const outcome = await executor.execute(buildSpec('http://kairos-test.invalid/'), buildContext());
    expect(outcome).toMatchObject({ status: 'failed', errorKind: 'network' });
    expect(outcome.errorMessage).toMatch(/^DNS lookup failed/);
  });

  it('truncates a body whose Content-Length exceeds the limit and keeps the run successful', async () => {
    const outcome = await executor.execute(
      buildSpec(`${server.origin}/big-declared`, { maxResponseSizeKb: 1 }),
      buildContext(),
    );
    expect(outcome).toMatchObject({
      status: 'success',
      statusCode: 200,
      responseTruncated: true,
      responseFormat: 'text',
      responseSizeBytes: 5000,
    });
    expect(outcome.responseBody).toBe('x'.repeat(1024));
  });

  it('stops reading a chunked body at the limit (the response never ends)', async () => {
    const outcome = await executor.execute(
      buildSpec(`${server.origin}/big-chunked-endless`, { maxResponseSizeKb: 2, timeoutMs: 3000 }),
      buildContext(),
    );
    expect(outcome).toMatchObject({
      status: 'success',
      responseTruncated: true,
      responseFormat: 'text',
      responseBody: '['.repeat(2048),
    });
    expect(outcome.responseSizeBytes).toBeGreaterThanOrEqual(2048);
    expect(outcome.durationMs).toBeLessThan(1000);
  });

  it('stores a truncated JSON body as text cut at a character boundary', async () => {
    const outcome = await executor.execute(
      buildSpec(`${server.origin}/big-json`, { maxResponseSizeKb: 1 }),
      buildContext(),
    );
    expect(outcome).toMatchObject({ status: 'success', responseTruncated: true, responseFormat: 'text' });
    const body = outcome.responseBody as string;
    expect(body.startsWith('{"items":"éé')).toBe(true);
    expect(body).not.toContain('\uFFFD');
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024);
  });

  it('applies the limit to decompressed bytes (compression bomb)', async () => {
    const outcome = await executor.execute(
      buildSpec(`${server.origin}/gzip-bomb`, { maxResponseSizeKb: 1 }),
      buildContext(),
    );
    expect(outcome).toMatchObject({ status: 'success', responseTruncated: true, responseBody: 'a'.repeat(1024) });
  });

  it.each([
    ['ftp://example.com/file', 'Unsupported URL scheme "ftp:"'],
    ['file:///etc/passwd', 'Unsupported URL scheme "file:"'],
    ['not a url', 'Invalid URL'],
    ['http://unix/var/run/docker.sock:/containers/json', 'reserved for UNIX sockets'],
  ])('refuses %s as an invalid request', async (url, message) => {
    const outcome = await executor.execute(buildSpec(url), buildContext());
    expect(outcome).toMatchObject({ status: 'failed', errorKind: 'invalid_request', statusCode: null, finalUrl: null });
    expect(outcome.errorMessage).toContain(message);
  });

  it('refuses a header value with a line break without echoing it', async () => {
    const spec = buildSpec(`${server.origin}/json`, { headers: { Authorization: 'Bearer secret\r\nX-Injected: 1' } });
    const outcome = await executor.execute(spec, buildContext());
    expect(outcome).toMatchObject({ status: 'failed', errorKind: 'invalid_request' });
    expect(outcome.errorMessage).toContain('Authorization');
    expect(outcome.errorMessage).not.toContain('secret');
  });
});
