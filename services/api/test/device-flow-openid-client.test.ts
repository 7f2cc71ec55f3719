/**
 * Interoperability of the device flow (RFC 8628) with a standard OAuth client library, not only our
 * own MCP client: openid-client (the version pinned by services/api) requests a device code,
 * polls the token endpoint with the form-encoded device_code grant while the person has not
 * approved yet (authorization_pending), and gets, once the person approves, a Bearer token the API
 * accepts. The server's 5 s interval is honoured, so the test takes about 10 s.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'openid-client';
import { createApiHarness, type ApiHarness, type TestAccount } from '../../../test/api.js';
import { waitFor } from '../../../test/engine.js';

let harness: ApiHarness;
let account: TestAccount;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  harness = await createApiHarness();
  account = await harness.createAccount();
  server = harness.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await harness.close();
});

test('openid-client completes the device authorization grant against Kairos', async () => {
  // Kairos publishes no discovery document: the metadata an integrator configures by hand.
  const config = new oauth.Configuration(
    {
      issuer: baseUrl,
      device_authorization_endpoint: `${baseUrl}/api/auth/device/code`,
      token_endpoint: `${baseUrl}/api/auth/device/token`,
    },
    'openid-client-test',
    undefined,
    oauth.None(), // a public client: client_id in the form body, no secret
  );
  oauth.allowInsecureRequests(config); // plain http on 127.0.0.1 in the test only
  const tokenAnswers: { status: number; body: { error?: string } }[] = [];
  config[oauth.customFetch] = async (url, options) => {
    const response = await fetch(url, options);
    if (url === `${baseUrl}/api/auth/device/token`) {
      tokenAnswers.push({ status: response.status, body: (await response.clone().json()) as { error?: string } });
      expect(new Headers(options.headers).get('content-type')).toMatch(/^application\/x-www-form-urlencoded/);
      expect(String(options.body)).toContain('grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code');
    }
    return response;
  };

  const authorization = await oauth.initiateDeviceAuthorization(config, { scope: 'kairos' });
  expect(authorization).toMatchObject({ expires_in: 600, interval: 5 });
  expect(authorization.verification_uri).toBe(`${baseUrl}/device`);

  const polling = oauth.pollDeviceAuthorizationGrant(config, authorization, undefined, {
    signal: AbortSignal.timeout(60_000),
  });
  // The person approves only after the client has been told to wait.
  await waitFor(async () => tokenAnswers.length > 0, 20_000, 'the first token poll');
  expect(tokenAnswers[0]).toEqual({ status: 400, body: expect.objectContaining({ error: 'authorization_pending' }) });
  const approved = await harness
    .client(account.apiKey)
    .post('/api/auth/device/approve', { user_code: authorization.user_code });
  expect(approved).toMatchObject({ status: 200, body: { success: true, status: 'approved' } });

  const tokens = await polling;
  expect(tokens.token_type.toLowerCase()).toBe('bearer');
  expect(tokens.expiresIn()).toBeGreaterThan(0);

  const jobs = await fetch(`${baseUrl}/api/jobs`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  expect(jobs.status).toBe(200);
  const wrong = await fetch(`${baseUrl}/api/jobs`, { headers: { authorization: `Bearer ${tokens.access_token}x` } });
  expect(wrong.status).toBe(401);
}, 60_000);
