import { createHttpExecutor } from './http-call.js';
import { startTestServer } from '../../../../test/test-server.js';
import type { TestServer } from '../../../../test/test-server.js';
import type { BlockedTarget, ExecutionContext, HttpExecutor, HttpRequestSpec } from './types.js';

const DEFAULT_POLICY = { allowPrivateTargets: false, allowCidrs: [] };

function buildSpec(url: string): HttpRequestSpec {
  return { url, method: 'GET', headers: {}, body: null, timeoutMs: 1000, maxResponseSizeKb: 100 };
}

const context: ExecutionContext = {
  runId: 'run_1',
  endpointId: 'end_1',
  scheduledAt: new Date('2026-11-21T10:00:00.000Z'),
  lastRunAt: null,
  signingKey: null,
};

describe('SSRF guard with the default policy', () => {
  let executor: HttpExecutor;
  let server: TestServer;

  beforeAll(async () => {
    executor = createHttpExecutor({ egress: DEFAULT_POLICY, userAgent: 'Kairos-Test/1.0' });
    server = await startTestServer((_req, res) => res.writeHead(200).end('reached'));
  });

  afterAll(async () => {
    executor.close();
    await server.close();
  });

  it.each([
    ['an IPv4 loopback literal', (port: number) => `http://127.0.0.1:${port}/`, '127.0.0.1'],
    [
      'localhost (checked on the resolved address)',
      (port: number) => `http://localhost:${port}/`,
      'resolves to a non-public address',
    ],
    ['an IPv6 loopback literal', (port: number) => `http://[::1]:${port}/`, '::1'],
    ['a decimal IPv4 literal', (port: number) => `http://2130706433:${port}/`, '127.0.0.1'],
    ['a hex/short IPv4 literal', (port: number) => `http://0x7f.1:${port}/`, '127.0.0.1'],
    ['an IPv4-mapped IPv6 literal', (port: number) => `http://[::ffff:127.0.0.1]:${port}/`, '::ffff:7f00:1'],
    ['the unspecified address', (port: number) => `http://0.0.0.0:${port}/`, '0.0.0.0'],
  ])('blocks %s before connecting', async (_name, buildUrl, address) => {
    const outcome = await executor.execute(buildSpec(buildUrl(server.port)), context);
    expect(outcome).toMatchObject({ status: 'failed', errorKind: 'blocked', statusCode: null });
    expect(outcome.errorMessage).toContain(address);
    expect(outcome.errorMessage).toContain('KAIROS_ALLOW_PRIVATE_TARGETS');
    expect(server.connectionCount()).toBe(0);
  });

  it('blocks the cloud metadata address at once', async () => {
    const outcome = await executor.execute(buildSpec('http://169.254.169.254/latest/meta-data/'), context);
    expect(outcome).toMatchObject({
      status: 'failed',
      errorKind: 'blocked',
      finalUrl: 'http://169.254.169.254/latest/meta-data/',
    });
    expect(outcome.errorMessage).toMatch(/^Blocked request to 169\.254\.169\.254: link-local addresses/);
    expect(outcome.durationMs).toBeLessThan(200);
  });

  it.each(['http://10.0.0.1/', 'http://192.168.1.1/', 'http://100.64.0.1/', 'http://[fd00::1]/', 'http://[fe80::1]/'])(
    'blocks the private target %s',
    async (url) => {
      const outcome = await executor.execute(buildSpec(url), context);
      expect(outcome).toMatchObject({ status: 'failed', errorKind: 'blocked' });
    },
  );
});

describe('what a blocked target tells the tenant', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer((_req, res) => res.writeHead(200).end('reached'));
  });
  afterAll(() => server.close());

  it('a host name resolving to a non-public address: the run says so, the address and the name go to the log', async () => {
    const logged: { message: string; meta: BlockedTarget }[] = [];
    const executor = createHttpExecutor({
      egress: DEFAULT_POLICY,
      userAgent: 'T',
      onBlocked: (meta) => logged.push({ message: 'blocked', meta }),
    });
    try {
      const outcome = await executor.execute(buildSpec(`http://localhost:${server.port}/internal`), context);
      expect(outcome).toMatchObject({ status: 'failed', errorKind: 'blocked', statusCode: null });
      expect(outcome.errorMessage).toMatch(/^Blocked request: the target's host name resolves to a non-public address/);
      // Neither the address it resolved to, nor the range, nor the name: nothing of the service's network.
      for (const revealing of ['127.0.0.1', '::1', 'localhost', 'loopback', 'resolved from']) {
        expect(outcome.errorMessage).not.toContain(revealing);
      }
      expect(server.connectionCount()).toBe(0);
      expect(logged).toEqual([
        {
          message: 'blocked',
          meta: expect.objectContaining({
            runId: context.runId,
            endpointId: context.endpointId,
            hostname: 'localhost',
            address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
            range: 'loopback',
          }),
        },
      ]);
    } finally {
      executor.close();
    }
  });

  it('an address written in the URL is named, as the tenant wrote it; the log has it too', async () => {
    const logged: BlockedTarget[] = [];
    const executor = createHttpExecutor({
      egress: DEFAULT_POLICY,
      userAgent: 'T',
      onBlocked: (meta) => logged.push(meta),
    });
    try {
      const outcome = await executor.execute(buildSpec(`http://127.0.0.1:${server.port}/`), context);
      expect(outcome.errorMessage).toMatch(/^Blocked request to 127\.0\.0\.1: loopback addresses/);
      expect(logged).toEqual([expect.objectContaining({ address: '127.0.0.1', range: 'loopback', runId: 'run_1' })]);
    } finally {
      executor.close();
    }
  });
});

describe('SSRF guard on redirects and allowlists', () => {
  let allowed: TestServer;
  let forbidden: TestServer;

  beforeAll(async () => {
    // On Linux the whole of 127.0.0.0/8 is loopback, so 127.0.0.3 is reachable if not blocked.
    forbidden = await startTestServer((_req, res) => res.writeHead(200).end('secret'), '127.0.0.3');
    allowed = await startTestServer(
      (_req, res) => res.writeHead(302, { location: `${forbidden.origin}/` }).end(),
      '127.0.0.1',
    );
  });

  afterAll(async () => {
    await allowed.close();
    await forbidden.close();
  });

  it('re-checks each redirect hop: a redirect to a blocked literal never connects', async () => {
    const executor = createHttpExecutor({
      egress: { allowPrivateTargets: false, allowCidrs: ['127.0.0.1/32'] },
      userAgent: 'T',
    });
    try {
      const outcome = await executor.execute(buildSpec(`${allowed.origin}/to-literal`), context);
      expect(outcome).toMatchObject({ status: 'failed', errorKind: 'blocked', finalUrl: `${forbidden.origin}/` });
      expect(outcome.errorMessage).toContain('127.0.0.3');
      expect(allowed.requests).toHaveLength(1);
      expect(forbidden.connectionCount()).toBe(0);
    } finally {
      executor.close();
    }
  });

  it('allows exactly the allowlisted range', async () => {
    const executor = createHttpExecutor({
      egress: { allowPrivateTargets: false, allowCidrs: ['127.0.0.3/32'] },
      userAgent: 'T',
    });
    try {
      expect(await executor.execute(buildSpec(`${forbidden.origin}/`), context)).toMatchObject({ status: 'success' });
      expect(await executor.execute(buildSpec(`${allowed.origin}/`), context)).toMatchObject({ errorKind: 'blocked' });
    } finally {
      executor.close();
    }
  });

  it('allows everything when private targets are allowed', async () => {
    const executor = createHttpExecutor({ egress: { allowPrivateTargets: true, allowCidrs: [] }, userAgent: 'T' });
    try {
      const outcome = await executor.execute(buildSpec(`${allowed.origin}/to-literal`), context);
      expect(outcome).toMatchObject({ status: 'success', responseBody: 'secret', finalUrl: `${forbidden.origin}/` });
    } finally {
      executor.close();
    }
  });

  it('rejects an invalid allowlist entry at creation', () => {
    expect(() =>
      createHttpExecutor({ egress: { allowPrivateTargets: false, allowCidrs: ['10.0.0.0/33'] }, userAgent: 'T' }),
    ).toThrow(/Invalid CIDR in the egress allowlist: "10.0.0.0\/33"/);
  });
});
