/**
 * A browser sign-in step that fails for an internal reason (the identity provider unreachable, a
 * token exchange refused, a bug) shows a generic page with a reference, never the internal message
 * (addresses, ports, library errors); the detail goes to the log under the same reference (the
 * request id, also in X-Request-Id). Messages written for people (an expired sign-in, an unverified
 * address) are still shown as they are.
 */
import type { Logger } from '@kairos/runtime';
import { createApiHarness, type ApiHarness } from '../../../test/api.js';
import { Browser, listen, startTestIdp } from '../../../test/identity.js';
import { closedPort } from '../../../test/test-server.js';

type RunningApi = Awaited<ReturnType<typeof listen>>;

/** Records the api's warnings (message and metadata) until restored. */
function captureWarnings(logger: Logger) {
  const original = logger.warn;
  const calls: [string, Record<string, unknown>][] = [];
  logger.warn = ((message: string, meta: Record<string, unknown>) => {
    calls.push([message, meta]);
    return logger;
  }) as Logger['warn'];
  return { calls, restore: () => (logger.warn = original) };
}

async function serve(env: Record<string, string>): Promise<{ harness: ApiHarness; api: RunningApi }> {
  const api = await listen();
  const harness = await createApiHarness({ env: { KAIROS_PUBLIC_URL: api.url, ...env } });
  api.serve(harness.app);
  return { harness, api };
}

function expectGenericPage(response: { status: number; text: string; headers: Headers }, hidden: RegExp[]) {
  const reference = response.headers.get('x-request-id')!;
  expect(reference).toBeTruthy();
  expect(response.text).toContain('Sign-in failed');
  expect(response.text).toContain('The sign-in could not be completed');
  expect(response.text).toContain(reference);
  for (const pattern of hidden) expect(response.text).not.toMatch(pattern);
  return reference;
}

describe('an identity provider that cannot be reached', () => {
  let harness: ApiHarness;
  let api: RunningApi;
  let issuerPort: number;
  beforeAll(async () => {
    issuerPort = await closedPort();
    ({ harness, api } = await serve({
      KAIROS_OIDC_ISSUER: `http://127.0.0.1:${issuerPort}`,
      KAIROS_OIDC_CLIENT_ID: 'kairos-web',
    }));
  });
  afterAll(async () => {
    await api.close();
    await harness.close();
  });

  it('shows a generic message with a reference, and logs the detail under it', async () => {
    const warnings = captureWarnings(harness.logger);
    const response = await new Browser().request(`${api.url}/api/auth/oidc/start`);
    warnings.restore();
    expect(response.status).toBe(503);
    const reference = expectGenericPage(response, [new RegExp(String(issuerPort)), /127\.0\.0\.1/, /fetch failed/i]);
    expect(warnings.calls).toEqual([
      [
        'browser sign-in step failed',
        expect.objectContaining({
          requestId: reference,
          path: '/api/auth/oidc/start',
          error: expect.stringContaining('identity provider unavailable'),
        }),
      ],
    ]);
  });
});

describe('a token exchange the identity provider refuses', () => {
  let harness: ApiHarness;
  let api: RunningApi;
  let idp: Awaited<ReturnType<typeof startTestIdp>>;
  beforeAll(async () => {
    api = await listen();
    idp = await startTestIdp({
      clientId: 'kairos-web',
      clientSecret: 'the-real-secret',
      redirectUri: `${api.url}/api/auth/oidc/callback`,
    });
    harness = await createApiHarness({
      env: {
        KAIROS_PUBLIC_URL: api.url,
        KAIROS_OIDC_ISSUER: idp.url,
        KAIROS_OIDC_CLIENT_ID: 'kairos-web',
        KAIROS_OIDC_CLIENT_SECRET: 'a-wrong-secret',
      },
    });
    api.serve(harness.app);
  });
  afterAll(async () => {
    await api.close();
    await idp.close();
    await harness.close();
  });

  it("hides the library's error (invalid_client) behind the reference", async () => {
    const warnings = captureWarnings(harness.logger);
    const response = await new Browser().request(`${api.url}/api/auth/oidc/start`);
    warnings.restore();
    expect(response.url).toMatch(/\/api\/auth\/oidc\/callback\?/);
    expect(response.status).toBe(400);
    const reference = expectGenericPage(response, [/invalid_client/, /client authentication/i]);
    expect(warnings.calls).toEqual([
      [
        'browser sign-in step failed',
        expect.objectContaining({ requestId: reference, path: '/api/auth/oidc/callback' }),
      ],
    ]);
    // The provider's own answer is in the log line (openid-client keeps it in the error's cause).
    expect(JSON.stringify(warnings.calls[0]![1])).toContain('invalid_client');
  });

  it('still shows the messages written for people', async () => {
    const forged = await new Browser().request(`${api.url}/api/auth/oidc/callback?code=abc&state=xyz`);
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('expired or was started in another browser');
  });
});
