/**
 * The api's security headers in a real browser: no page of Kairos can be framed by another origin
 * (the device approval page included), and the Content-Security-Policy lets every page Kairos
 * serves work as before: the web UI, the interactive API reference (Scalar, served from this
 * origin, its inline script allowed by nonce) and Bull Board. A policy violation shows as a
 * "Content Security Policy" console error, which these tests collect.
 */
import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../test-server.js';
import { screenshot, startBrowserHarness, WAIT_MS, type BrowserHarness } from './harness.js';

let h: BrowserHarness;
let framer: TestServer;

beforeAll(async () => {
  h = await startBrowserHarness();
  // Another origin (another port) that tries to frame Kairos pages.
  framer = await startTestServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://framer').searchParams.get('path') ?? '/device';
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>framer</title><iframe id="victim" src="${h.url(path)}"></iframe>`);
  });
}, 60_000);
afterAll(async () => {
  await framer?.close();
  await h?.close();
});

/** Console errors the Content-Security-Policy raised on the page while `run` ran. */
async function policyViolations(page: Page, run: () => Promise<void>): Promise<string[]> {
  const violations: string[] = [];
  const listener = (message: { type(): string; text(): string }) => {
    if (message.type() === 'error' && message.text().includes('Content Security Policy')) {
      violations.push(message.text());
    }
  };
  page.on('console', listener);
  try {
    await run();
  } finally {
    page.off('console', listener);
  }
  return violations;
}

describe('framing', () => {
  it.each(['/device', '/', '/api/reference'])('%s does not load inside another origin’s frame', async (path) => {
    const page = await h.newPage();
    const blocked = new Promise<void>((resolve) => {
      page.on('console', (message) => {
        if (message.text().includes('frame-ancestors')) resolve();
      });
    });
    await page.goto(`${framer.origin}/?path=${encodeURIComponent(path)}`);
    await Promise.race([blocked, page.waitForTimeout(WAIT_MS)]);
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame())!;
    // Chromium replaces a refused frame with its own error document: none of Kairos's content.
    const text = await frame
      .locator('body')
      .innerText({ timeout: 1000 })
      .catch(() => '');
    expect(text).not.toMatch(/Kairos|Connect a device|Sign in/);
    expect(frame.url()).not.toBe(h.url(path));
    await page.close();
  });
});

describe('the Content-Security-Policy leaves every page working', () => {
  it('the web UI, signed in: jobs and settings', async () => {
    const violations = await policyViolations(h.page, async () => {
      await h.signIn(h.page, '/jobs');
      await h.page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
      await h.page.goto(h.url('/settings'));
      await h.page.getByRole('region', { name: 'API keys' }).waitFor();
    });
    expect(violations).toEqual([]);
  });

  it('the interactive API reference', async () => {
    const page = await h.newPage();
    const violations = await policyViolations(page, async () => {
      await page.goto(h.url('/api/reference'));
      await page.getByText('Kairos API', { exact: false }).first().waitFor();
      await page.getByText('Liveness: the process serves requests').first().waitFor();
    });
    await screenshot(page, 'security-headers-api-reference');
    expect(violations).toEqual([]);
    await page.close();
  });

  it('Bull Board, for an operator', async () => {
    await h.api.db.prisma.user.updateMany({ where: { email: h.user.email.toLowerCase() }, data: { role: 'operator' } });
    const violations = await policyViolations(h.page, async () => {
      await h.page.goto(h.url('/admin/queues'));
      await h.page.getByText('due', { exact: true }).first().waitFor();
    });
    await screenshot(h.page, 'security-headers-bull-board');
    // Bull Board links a stylesheet of Google's font service, which the policy (and an offline
    // install) refuses: the board falls back to the system font. Nothing else may be refused.
    expect(violations.filter((text) => !text.includes('fonts.googleapis.com'))).toEqual([]);
  });

  it('a server-rendered page (a sign-in error)', async () => {
    const page = await h.newPage();
    const violations = await policyViolations(page, async () => {
      await page.goto(h.url('/api/auth/local?token=unknown'));
      await page.getByRole('heading', { name: 'Sign-in failed' }).waitFor();
    });
    expect(violations).toEqual([]);
    await page.close();
  });
});
