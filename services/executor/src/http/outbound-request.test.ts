import { signPayload, verifySignature } from '@kairos/core';
import { parseTargetUrl, prepareRequest, InvalidTargetError } from './outbound-request.js';
import type { PreparedRequest } from './outbound-request.js';
import type { ExecutionContext, HttpRequestSpec } from './types.js';

const NOW = new Date('2026-11-21T10:00:07.900Z');
const NOW_SEC = 1795255207;
const KEY = 'a'.repeat(64);

const context: ExecutionContext = {
  runId: 'run_1',
  endpointId: 'end_1',
  scheduledAt: new Date('2026-11-21T10:00:00.000Z'),
  lastRunAt: null,
  signingKey: KEY,
};

function prepare(overrides: Partial<HttpRequestSpec>, ctx: ExecutionContext = context): PreparedRequest {
  const spec: HttpRequestSpec = {
    url: 'https://api.example.com/hook',
    method: 'POST',
    headers: {},
    body: null,
    timeoutMs: 1000,
    maxResponseSizeKb: 100,
    ...overrides,
  };
  const result = prepareRequest(spec, ctx, { userAgent: 'Kairos/1.0', now: NOW });
  if (!result.ok) throw new Error(result.message);
  return result.request;
}

describe('prepareRequest', () => {
  it('signs with the unix second of now over the exact body string', () => {
    const request = prepare({ body: { a: 'é' } });
    expect(NOW_SEC).toBe(Math.floor(NOW.getTime() / 1000));
    expect(request.body).toBe('{"a":"é"}');
    expect(request.headers['x-service-timestamp']).toBe(String(NOW_SEC));
    expect(verifySignature(KEY, NOW_SEC, request.body!, request.headers['x-service-signature']!, NOW_SEC)).toBe(true);
  });

  it('never sends a body with GET and signs the empty string', () => {
    const request = prepare({ method: 'GET', body: { ignored: true } });
    expect(request.body).toBeUndefined();
    expect(request.headers['content-type']).toBeUndefined();
    expect(verifySignature(KEY, NOW_SEC, '', request.headers['x-service-signature']!, NOW_SEC)).toBe(true);
  });

  it('sends a string body as written, without a default content type', () => {
    const request = prepare({ method: 'PATCH', body: 'a=1&b={{runId}}' });
    expect(request.body).toBe('a=1&b=run_1');
    expect(request.headers['content-type']).toBeUndefined();
  });

  it('keeps a user content type for a JSON body, matched case-insensitively', () => {
    expect(
      prepare({ body: { a: 1 }, headers: { 'CONTENT-TYPE': 'application/merge-patch+json' } }).headers,
    ).toMatchObject({
      'content-type': 'application/merge-patch+json',
    });
  });

  it('inside a rotation grace window lists the current then the previous key’s signature', () => {
    const previousKey = 'b'.repeat(64);
    const request = prepare({ body: { a: 1 } }, { ...context, previousSigningKey: previousKey });
    const header = request.headers['x-service-signature']!;
    expect(header).toBe(`${signPayload(KEY, NOW_SEC, '{"a":1}')} ${signPayload(previousKey, NOW_SEC, '{"a":1}')}`);
    expect(verifySignature(previousKey, NOW_SEC, '{"a":1}', header, NOW_SEC)).toBe(true);
    // Without a previous key (the default): exactly one signature.
    expect(prepare({ body: { a: 1 } }).headers['x-service-signature']).toBe(signPayload(KEY, NOW_SEC, '{"a":1}'));
  });

  it('omits the signature headers without a key', () => {
    const request = prepare({ body: { a: 1 } }, { ...context, signingKey: null });
    expect(Object.keys(request.headers).sort()).toEqual(['content-type', 'user-agent', 'x-service-run-id']);
    expect(request.signing).toBeNull();
  });

  it('drops reserved and hop-by-hop user headers, in any case', () => {
    const request = prepare({
      headers: {
        'x-SERVICE-signature': 'x',
        'X-Service-Timestamp': '1',
        'X-Service-Run-Id': 'x',
        'user-agent': 'x',
        HOST: 'x',
        'Content-Length': '1',
        'Transfer-Encoding': 'chunked',
        Connection: 'close',
        'Keep-Alive': 'timeout=1',
        Upgrade: 'websocket',
        Authorization: 'Bearer t',
      },
    });
    expect(request.headers).toEqual({
      authorization: 'Bearer t',
      'user-agent': 'Kairos/1.0',
      'x-service-run-id': 'run_1',
      'x-service-signature': expect.stringMatching(/^sha256=/),
      'x-service-timestamp': String(NOW_SEC),
    });
  });

  it("sends the execution's trace context in place of the endpoint's own trace headers, as a pair", () => {
    const traceparent = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    const userTrace = { TraceParent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`, tracestate: 'user=1' };
    // Ours (tracing on, propagateTrace): a user tracestate must not ride with our traceparent.
    const traced = prepare({ headers: userTrace }, { ...context, traceHeaders: { traceparent } });
    expect(traced.headers.traceparent).toBe(traceparent);
    expect(traced.headers).not.toHaveProperty('tracestate');
    const withState = prepare({ headers: userTrace }, { ...context, traceHeaders: { traceparent, tracestate: 'v=1' } });
    expect(withState.headers).toMatchObject({ traceparent, tracestate: 'v=1' });
    // None of ours (tracing off or opted out): the endpoint's headers go as written.
    for (const traceHeaders of [undefined, {}]) {
      expect(prepare({ headers: userTrace }, { ...context, traceHeaders }).headers).toMatchObject({
        traceparent: userTrace.TraceParent,
        tracestate: 'user=1',
      });
    }
    expect(prepare({}).headers).not.toHaveProperty('traceparent');
  });

  it('renders tokens in the query and the body, and builds no template values when there are none', () => {
    let reads = 0;
    const counting: ExecutionContext = {
      ...context,
      get scheduledAt() {
        reads += 1;
        return context.scheduledAt;
      },
    };
    const plain = prepare(
      { url: 'https://api.example.com/hook?a={b}', body: { '{{runId}}': ['x', { y: 1 }] } },
      counting,
    );
    expect(plain.url.href).toBe('https://api.example.com/hook?a={b}');
    expect(plain.body).toBe('{"{{runId}}":["x",{"y":1}]}');
    expect(prepare({ body: 'text {runId}' }, counting).body).toBe('text {runId}');
    expect(reads).toBe(0);

    const templated = prepare(
      { url: 'https://api.example.com/hook?at={{scheduledAt}}', body: { a: ['{{ runId }}', { now: '{{now}}' }] } },
      counting,
    );
    expect(templated.url.href).toBe('https://api.example.com/hook?at=2026-11-21T10%3A00%3A00.000Z');
    expect(templated.body).toBe('{"a":["run_1",{"now":"2026-11-21T10:00:07.900Z"}]}');
    expect(reads).toBe(1);
    expect(prepare({ method: 'GET', body: { ignored: '{{runId}}' } }, counting).body).toBeUndefined();
    expect(reads).toBe(1);
  });

  it.each([
    [{ method: 'TRACE' as HttpRequestSpec['method'] }, 'Unsupported HTTP method "TRACE"'],
    [{ timeoutMs: 0 }, 'timeoutMs must be a positive number'],
    [{ maxResponseSizeKb: Number.NaN }, 'maxResponseSizeKb must be zero or more'],
    [{ headers: { 'bad name': 'x' } }, 'Invalid header name "bad name"'],
    [{ url: 'gopher://x/' }, 'Unsupported URL scheme "gopher:"'],
  ])('refuses %j', (overrides, message) => {
    const result = prepareRequest(
      {
        url: 'https://api.example.com/',
        method: 'GET',
        headers: {},
        body: null,
        timeoutMs: 1000,
        maxResponseSizeKb: 1,
        ...overrides,
      },
      context,
      { userAgent: 'Kairos/1.0', now: NOW },
    );
    expect(result).toEqual({ ok: false, message: expect.stringContaining(message) });
  });
});

describe('parseTargetUrl', () => {
  it('normalises IP literals the way the egress guard sees them', () => {
    expect((parseTargetUrl('http://2130706433:8080/x') as URL).hostname).toBe('127.0.0.1');
    expect((parseTargetUrl('HTTP://[::FFFF:127.0.0.1]/') as URL).hostname).toBe('[::ffff:7f00:1]');
  });

  it('accepts only http and https', () => {
    expect(parseTargetUrl('javascript:alert(1)')).toBeInstanceOf(InvalidTargetError);
    expect(parseTargetUrl('https://example.com/')).toBeInstanceOf(URL);
  });
});
