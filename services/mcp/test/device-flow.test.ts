/**
 * The device-flow client (RFC 8628) and the stdio server's sign-in, against a scripted device
 * endpoint on 127.0.0.1: every answer of the token poll, and a fake clock so intervals are
 * checked without waiting for them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KairosApiError } from '@kairos/client';
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { DEVICE_GRANT_TYPE, DeviceFlowError, TokenStore, pollForToken, requestDeviceCode } from '@kairos/client/node';
import { DeviceLogin } from '../src/device-login.js';

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

let server: TestServer;
let tokenAnswers: Answer[] = [];
let codeAnswers: Answer[] = [];
let codesIssued = 0;

const codeAnswer = (overrides: Record<string, unknown> = {}): Answer => {
  codesIssued += 1;
  const userCode = `BCDF-GH${'JKLMNPQRST'[codesIssued % 10]}${'JKLMNPQRST'[codesIssued % 10]}`;
  return {
    status: 200,
    body: {
      device_code: `device-${codesIssued}`,
      user_code: userCode,
      verification_uri: `${server.origin}/device`,
      verification_uri_complete: `${server.origin}/device?user_code=${userCode}`,
      expires_in: 600,
      interval: 5,
      ...overrides,
    },
  };
};
const oauth = (error: string, extra: Record<string, unknown> = {}): Answer => ({
  status: 400,
  body: { error, ...extra },
});
const issued: Answer = { status: 200, body: { access_token: 'kat_issued', token_type: 'Bearer', expires_in: 3600 } };

beforeAll(async () => {
  server = await startTestServer((req, res) => {
    const answer =
      req.url === '/api/auth/device/code'
        ? (codeAnswers.shift() ?? codeAnswer())
        : (tokenAnswers.shift() ?? oauth('authorization_pending'));
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(JSON.stringify(answer.body));
  });
});
afterAll(() => server.close());
beforeEach(() => {
  tokenAnswers = [];
  codeAnswers = [];
  server.requests.length = 0;
});

/** A clock that moves only when the code sleeps. */
function fakeClock(start = Date.parse('2026-11-21T12:00:00.000Z')) {
  let nowMs = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => new Date(nowMs),
    sleep: async (ms: number) => {
      sleeps.push(ms);
      nowMs += ms;
    },
  };
}

const tokenPolls = () => server.requests.filter((request) => request.url === '/api/auth/device/token');

describe('pollForToken', () => {
  it('waits `interval` between polls, adds 5 s on slow_down, honours Retry-After, returns the token', async () => {
    const clock = fakeClock();
    const options = { apiUrl: server.origin, ...clock };
    const code = await requestDeviceCode(options, 'test device');
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ client_name: 'test device' });
    tokenAnswers = [
      oauth('authorization_pending'),
      oauth('slow_down'),
      { status: 429, body: { error: { code: 'RATE_LIMITED', message: 'slow' } }, headers: { 'retry-after': '2' } },
      oauth('authorization_pending'),
      issued,
    ];
    const token = await pollForToken(options, code);
    expect(token.accessToken).toBe('kat_issued');
    expect(token.expiresAt.getTime()).toBe(clock.now().getTime() + 3600_000);
    expect(clock.sleeps).toEqual([5000, 5000, 10_000, 2000, 10_000, 10_000]);
    expect(tokenPolls()).toHaveLength(5);
    expect(JSON.parse(tokenPolls()[0]!.body)).toEqual({ device_code: code.deviceCode, grant_type: DEVICE_GRANT_TYPE });
  });

  it('takes the larger interval when slow_down names one', async () => {
    const clock = fakeClock();
    const options = { apiUrl: server.origin, ...clock };
    const code = await requestDeviceCode(options, 'test device');
    tokenAnswers = [oauth('slow_down', { interval: 30 }), issued];
    await pollForToken(options, code);
    expect(clock.sleeps).toEqual([5000, 30_000]);
  });

  it.each([
    ['access_denied', /denied/],
    ['expired_token', /expired/],
    ['invalid_grant', /invalid_grant/],
  ])('stops on %s', async (error, message) => {
    const clock = fakeClock();
    const options = { apiUrl: server.origin, ...clock };
    const code = await requestDeviceCode(options, 'test device');
    tokenAnswers = [oauth('authorization_pending'), oauth(error)];
    const failure = await pollForToken(options, code).catch((caught: DeviceFlowError) => caught);
    expect(failure).toBeInstanceOf(DeviceFlowError);
    expect(failure).toMatchObject({ reason: error, message: expect.stringMatching(message) });
    expect(tokenPolls()).toHaveLength(2);
  });

  it('stops polling when the code expires locally', async () => {
    const clock = fakeClock();
    const options = { apiUrl: server.origin, ...clock };
    codeAnswers = [codeAnswer({ expires_in: 12 })];
    const code = await requestDeviceCode(options, 'test device');
    await expect(pollForToken(options, code)).rejects.toMatchObject({ reason: 'expired_token' });
    expect(tokenPolls()).toHaveLength(2); // at 5 s and 10 s; at 15 s the code is gone
  });

  it('reports a refused code request with the API message', async () => {
    codeAnswers = [{ status: 429, body: { error: { code: 'RATE_LIMITED', message: 'too many requests' } } }];
    await expect(requestDeviceCode({ apiUrl: server.origin }, 'test device')).rejects.toMatchObject({
      reason: 'request_failed',
      message: expect.stringContaining('HTTP 429: too many requests'),
    });
  });
});

describe('DeviceLogin (the stdio server credentials)', () => {
  let dir: string;
  let logins: DeviceLogin[];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kairos-device-login-'));
    logins = [];
  });
  afterEach(async () => {
    for (const credentials of logins) credentials.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const login = (loginWaitMs: number) => {
    const lines: string[] = [];
    const store = new TokenStore(join(dir, 'token.json'), (line) => lines.push(line));
    const credentials = new DeviceLogin({
      apiUrl: server.origin,
      store,
      clientName: 'test',
      loginWaitMs,
      log: (line) => lines.push(line),
      // Real time, shortened: the interval of 5 s becomes 5 ms.
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms / 1000)),
    });
    logins.push(credentials);
    return { credentials, store, lines };
  };

  it('after a denied sign-in the next call starts a new one; the token is cached', async () => {
    const { credentials, store, lines } = login(5000);
    tokenAnswers = [oauth('access_denied')];
    await credentials.start();
    await expect(credentials.headers()).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'sign-in failed: the sign-in was denied',
    });
    expect(lines.join('\n')).toMatch(/sign-in failed: the sign-in was denied/);
    tokenAnswers = [oauth('authorization_pending'), issued];
    expect(await credentials.headers()).toEqual({ authorization: 'Bearer kat_issued' });
    expect(await store.read(server.origin, new Date())).toMatchObject({ accessToken: 'kat_issued' });
    expect(lines.filter((line) => line.startsWith('sign in to Kairos: open'))).toHaveLength(2);
  });

  it('a call that waits too long fails with the link and code to approve', async () => {
    const { credentials } = login(200);
    await credentials.start();
    const failure = await credentials.headers().catch((caught: KairosApiError) => caught);
    expect(failure).toBeInstanceOf(KairosApiError);
    expect(failure).toMatchObject({
      code: 'UNAUTHORIZED',
      details: { user_code: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/) },
    });
    expect((failure as KairosApiError).message).toMatch(
      /^not signed in yet: open http:\/\/127\.0\.0\.1:\d+\/device\?user_code=/,
    );
  });

  it('uses a cached token without signing in, and signs in again when it is refused', async () => {
    const { credentials, store } = login(5000);
    const cached = {
      apiUrl: server.origin,
      accessToken: 'kat_cached',
      tokenType: 'Bearer' as const,
      expiresAt: new Date(Date.now() + 3600_000).toISOString(),
      obtainedAt: new Date().toISOString(),
    };
    await store.write(cached);
    await credentials.start();
    expect(await credentials.headers()).toEqual({ authorization: 'Bearer kat_cached' });
    expect(server.requests).toEqual([]);
    tokenAnswers = [issued];
    expect(await credentials.refresh({ authorization: 'Bearer kat_cached' })).toBe(true);
    expect(await credentials.headers()).toEqual({ authorization: 'Bearer kat_issued' });
  });
});
