/**
 * Harness of the MCP server's tests (services/mcp/test), not a test: a real API server on 127.0.0.1 (startApi, on the harness's own
 * database and Redis prefix), the scheduling engine in-process, a target server for endpoints,
 * and the browser sign-in a person uses to approve a device (one-time sign-in link → session
 * cookie → POST /api/auth/device/approve with the CSRF token).
 */
import { newId } from '@kairos/core';
import { recordAnalysisSession } from '@kairos/db';
import { createApiHarness, startHarnessApi, type ApiHarness, type TestAccount } from './api.js';
import { startEngine, type Engine } from './engine.js';
import { createSignInLink } from '../services/api/src/auth/local-admin.js';
import type { RunningApi } from '../services/api/src/server.js';
import { startTestServer, type TestServer } from './test-server.js';

/** A JSON answer the test reads field by field (its shape is what the test asserts). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonBody = any;

export interface McpTestEnv {
  harness: ApiHarness;
  api: RunningApi;
  engine: Engine;
  /** Endpoints call it: answers 200 {"ok":true,"queue":3}. */
  target: TestServer;
  account: TestAccount;
  close(): Promise<void>;
}

export async function startMcpTestEnv(): Promise<McpTestEnv> {
  const harness = await createApiHarness();
  const api = await startHarnessApi(harness, {
    // Revocation must take effect at once (no credential cache).
    KAIROS_AUTH_CACHE_SECONDS: '0',
    // A configured identity provider (never contacted here) keeps startApi from printing the local
    // admin sign-in link; tests sign their own user in with a one-time link instead.
    KAIROS_GITHUB_CLIENT_ID: 'unused',
    KAIROS_GITHUB_CLIENT_SECRET: 'unused',
  });
  const engine = await startEngine(harness);
  const target = await startTestServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, queue: 3 }));
  });
  // The suites send a few hundred requests in a few seconds, every one against the account's bucket
  // (the real api's limits, not the harness's relaxed ones). Enterprise's burst of 200 ran out on a
  // fast host (429 from the third test of http.test.ts on), so the account's limits are
  // raised: these tests are about the tools, the rate limit has its own (services/api/test/rate-limit.test.ts).
  const account = await harness.createAccount({ tier: 'enterprise' });
  await harness.db.pool.query(`UPDATE accounts SET "quotaOverrides" = $2 WHERE id = $1`, [
    account.accountId,
    { requestsPerMinute: 60_000, burst: 10_000 },
  ]);
  return {
    harness,
    api,
    engine,
    target,
    account,
    async close() {
      await target.close();
      await engine.close();
      await api.close();
      await harness.close();
    },
  };
}

export interface BrowserSession {
  cookie: string;
  csrfToken: string;
}

/** Signs the user in as a browser would: a one-time sign-in link, then the session cookies. */
export async function signIn(env: McpTestEnv, userId: string): Promise<BrowserSession> {
  const link = await createSignInLink(env.harness.db, { userId, baseUrl: env.api.url, now: new Date() });
  const response = await fetch(link.url, { redirect: 'manual' });
  expect(response.status).toBe(302);
  const cookies = response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]!);
  const csrf = cookies.find((cookie) => cookie.startsWith('kairos_csrf='));
  expect(csrf).toBeDefined();
  return { cookie: cookies.join('; '), csrfToken: decodeURIComponent(csrf!.slice('kairos_csrf='.length)) };
}

/** A call of the API as the signed-in person (cookie + CSRF header). */
export async function asPerson(
  env: McpTestEnv,
  session: BrowserSession,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: JsonBody }> {
  const response = await fetch(`${env.api.url}${path}`, {
    method,
    headers: {
      cookie: session.cookie,
      'x-csrf-token': session.csrfToken,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

export async function approveDevice(env: McpTestEnv, session: BrowserSession, userCode: string): Promise<void> {
  const approved = await asPerson(env, session, 'POST', '/api/auth/device/approve', { user_code: userCode });
  expect(approved).toMatchObject({ status: 200, body: { success: true, status: 'approved' } });
}

/** The whole device flow as a client would run it, approved by the person: an access token. */
export async function obtainAccessToken(env: McpTestEnv, session: BrowserSession): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${env.api.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as JsonBody };
  };
  const code = await post('/api/auth/device/code', { client_name: 'mcp http test' });
  expect(code.status).toBe(200);
  await approveDevice(env, session, code.body.user_code);
  const token = await post('/api/auth/device/token', { device_code: code.body.device_code });
  expect(token).toMatchObject({ status: 200, body: { token_type: 'Bearer' } });
  return token.body.access_token as string;
}

/** An analysis session as the planner records one (the planner itself is not running here). */
export async function seedAnalysisSession(env: McpTestEnv, endpointId: string): Promise<string> {
  const id = newId();
  const now = new Date();
  await recordAnalysisSession(
    env.harness.db,
    {
      id,
      accountId: env.account.accountId,
      endpointId,
      status: 'completed',
      shadow: false,
      trigger: 'first-analysis',
      model: 'fake-model',
      reasoning: 'The queue is short; the baseline is fine.',
      toolsCalled: ['get_latest_response', 'propose_interval'],
      actionsApplied: [
        {
          tool: 'propose_interval',
          params: { intervalMs: 120_000 },
          result: 'applied: every 120000 ms',
          applied: true,
        },
      ],
      inputTokens: 100,
      outputTokens: 20,
      startedAt: now,
      durationMs: 900,
      nextAnalysisAt: new Date(now.getTime() + 3_600_000),
      endpointFailureCount: 0,
      confidence: 'high',
      errorMessage: null,
    },
    now,
  );
  return id;
}
