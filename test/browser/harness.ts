/**
 * Browser tests' harness: the real api serving the built UI (services/web/dist) on a real
 * 127.0.0.1 port, its own cloned database, a local OpenID Connect provider to sign in against,
 * optionally the scheduling engine and a local target server, and Debian's Chromium driven by
 * playwright-core with a fresh context per test file. Screenshots go to artifacts/screenshots/
 * (CI keeps that folder). Nothing is skipped: a missing Chromium or UI build fails the file.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newId } from '@kairos/core';
import { recordAnalysisSession } from '@kairos/db';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../test-server.js';
import { listen, startTestIdp, type IdpUser } from '../identity.js';
import { createApiHarness, type ApiHarness } from '../api.js';
import { startEngine, type Engine } from '../engine.js';

export { waitFor } from '../engine.js';

export const CHROMIUM_PATH = process.env.KAIROS_TEST_CHROMIUM ?? '/usr/bin/chromium';
/** The built UI; KAIROS_TEST_WEB_DIR points elsewhere (e.g. a build to another folder). */
export const WEB_DIR =
  process.env.KAIROS_TEST_WEB_DIR ?? fileURLToPath(new URL('../../services/web/dist', import.meta.url));
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../artifacts/screenshots', import.meta.url));
export const IDP_NAME = 'Test IdP';
/** Every wait in a browser test is bounded: locators and waitFor use this unless they say otherwise. */
export const WAIT_MS = 10_000;

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserHarnessOptions {
  /** Start a scheduler and an executor (runs, test runs). */
  engine?: boolean;
  /** The person the IdP signs in (a unique one per file by default). */
  user?: Partial<IdpUser>;
  /** false: the api is told of no identity provider (the sign-in page offers the one-time local link). */
  identityProvider?: boolean;
}

export interface BrowserHarness {
  api: ApiHarness;
  /** Where the api and the UI are served, e.g. http://127.0.0.1:41234. */
  baseUrl: string;
  idp: Awaited<ReturnType<typeof startTestIdp>>;
  user: IdpUser;
  engine: Engine | null;
  /** A local target endpoints call: answers 200 {"ok":true} and records requests. */
  target: TestServer;
  browser: Browser;
  context: BrowserContext;
  /** The file's page (desktop size, 1280×800; locale en-US, time zone UTC). */
  page: Page;
  /** An absolute URL on the api origin. */
  url(path: string): string;
  /** Opens the UI signed out and signs in through the IdP with the "Sign in with …" button. */
  signIn(page?: Page, path?: string): Promise<void>;
  /** Another page in the same (signed-in) context, e.g. 360 px wide. */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  /** The signed-in user's account id (after signIn). */
  accountId(): Promise<string>;
  /** A JSON request from the test itself (not the browser), e.g. with an API key or a Bearer token. */
  request(path: string, init?: RequestOptions): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): Promise<void>;
}

/** Fails (never skips) when the UI is not built or Chromium is not installed. */
export function assertPrerequisites(): void {
  if (!existsSync(join(WEB_DIR, 'index.html'))) {
    throw new Error(
      `The web UI is not built (${WEB_DIR}/index.html is missing). ` +
        'Build it first: pnpm --filter @kairos/web run build (pnpm test does this before jest).',
    );
  }
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}; the browser tests need it ` +
        '(Debian: apt-get install chromium; or set KAIROS_TEST_CHROMIUM to its path).',
    );
  }
}

/** Saves a full-page screenshot as artifacts/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  // Let the page settle (fonts, pending fetches) without waiting forever on a polling page.
  await page.waitForLoadState('networkidle', { timeout: 2000 }).catch(() => undefined);
  await page.screenshot({ path, fullPage: true, animations: 'disabled', timeout: WAIT_MS });
  return path;
}

/**
 * Accepts the next window.confirm on the page (playwright dismisses dialogs it is not told about)
 * and resolves with its message, so a test can check what was asked.
 */
export function acceptNextDialog(page: Page): Promise<string> {
  return new Promise((resolve, reject) => {
    page.once('dialog', (dialog) => {
      const message = dialog.message();
      dialog.accept().then(() => resolve(message), reject);
    });
  });
}

/** An analysis session as the planner records one (the planner itself does not run here). */
export async function recordPlannerSession(
  api: ApiHarness,
  accountId: string,
  endpointId: string,
  reasoning: string,
): Promise<void> {
  const now = new Date();
  await recordAnalysisSession(
    api.db,
    {
      id: newId(),
      accountId,
      endpointId,
      status: 'completed',
      shadow: false,
      trigger: 'scheduled',
      model: 'test-model',
      reasoning,
      toolsCalled: ['get_recent_runs', 'propose_interval'],
      actionsApplied: [
        {
          tool: 'propose_interval',
          params: { intervalMs: 2000, ttlMinutes: 30, reason: 'quiet hour' },
          result: 'applied: interval 2000 ms',
          applied: true,
        },
      ],
      inputTokens: 900,
      outputTokens: 120,
      startedAt: now,
      durationMs: 1500,
      nextAnalysisAt: new Date(now.getTime() + 15 * 60_000),
      endpointFailureCount: 0,
      confidence: 'high',
      errorMessage: null,
    },
    new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
  );
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

async function requestJson(baseUrl: string, path: string, init: RequestOptions = {}) {
  const response = await fetch(new URL(path, baseUrl), {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    signal: AbortSignal.timeout(WAIT_MS),
  });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, body: (text ? JSON.parse(text) : null) as any };
}

function configure(context: BrowserContext): void {
  context.setDefaultTimeout(WAIT_MS);
  context.setDefaultNavigationTimeout(15_000);
}

export async function startBrowserHarness(options: BrowserHarnessOptions = {}): Promise<BrowserHarness> {
  assertPrerequisites();
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    // Reverse order; keep closing when one fails, then report the first failure.
    let failure: unknown;
    for (const closer of closers.reverse()) await closer().catch((error) => (failure ??= error));
    closers.length = 0;
    if (failure) throw failure;
  };
  try {
    const server = await listen();
    closers.push(server.close);
    const idp = await startTestIdp({
      clientId: 'kairos-web',
      clientSecret: 'idp-secret',
      redirectUri: `${server.url}/api/auth/oidc/callback`,
    });
    closers.push(idp.close);
    const tag = randomBytes(3).toString('hex');
    const user: IdpUser = {
      sub: `browser-${tag}`,
      email: `browser-${tag}@example.test`,
      email_verified: true,
      name: 'Browser Tester',
      ...options.user,
    };
    idp.state.user = user;
    const oidc = {
      KAIROS_OIDC_ISSUER: idp.url,
      KAIROS_OIDC_CLIENT_ID: 'kairos-web',
      KAIROS_OIDC_CLIENT_SECRET: 'idp-secret',
      KAIROS_OIDC_NAME: IDP_NAME,
    };
    const api = await createApiHarness({
      env: {
        KAIROS_WEB_DIR: WEB_DIR,
        KAIROS_PUBLIC_URL: server.url,
        ...(options.identityProvider === false ? {} : oidc),
      },
    });
    closers.unshift(() => api.close()); // last: after the server stopped answering
    server.serve(api.app);
    const engine = options.engine ? await startEngine(api) : null;
    if (engine) closers.push(() => engine.close());
    const target = await startTestServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true }));
    });
    closers.push(target.close);
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 15_000 });
    closers.push(() => browser.close());
    // A fixed locale and time zone: what the pages show (and datetime-local values) do not depend on the machine.
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    configure(context);
    const page = await context.newPage();
    const url = (path: string) => new URL(path, server.url).toString();

    return {
      api,
      baseUrl: server.url,
      idp,
      user,
      engine,
      target,
      browser,
      context,
      page,
      url,
      async signIn(onPage = page, path = '/') {
        await onPage.goto(url(path));
        await onPage.getByRole('heading', { name: 'Sign in to Kairos' }).waitFor();
        await onPage.getByRole('link', { name: `Sign in with ${IDP_NAME}` }).click();
        // IdP → callback → back to `path`, now signed in: the layout's sign-out button shows.
        await onPage.getByRole('button', { name: 'Sign out' }).waitFor();
      },
      async newPage(viewport) {
        const created = await context.newPage();
        if (viewport) await created.setViewportSize(viewport);
        return created;
      },
      async accountId() {
        const found = await api.db.prisma.user.findFirstOrThrow({ where: { email: user.email.toLowerCase() } });
        return found.accountId;
      },
      request: (path, init) => requestJson(server.url, path, init),
      close,
    };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
