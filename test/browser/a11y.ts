/**
 * What the browser tests read of a page the way keyboard and screen-reader users meet it: axe-core's
 * WCAG 2.0/2.1/2.2 A and AA rules (the axe-core package's minified script, added to the page from node_modules:
 * no network), the focused element, a control's accessible description, and console errors.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Locator, Page } from 'playwright-core';
import type { BrowserHarness } from './harness.js';

const AXE_SCRIPT = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** axe-core's tags for the A and AA success criteria of WCAG 2.0, 2.1 and 2.2. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** Runs axe-core on the page as it is now and answers its violations (none: an empty list). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the debugging protocol, not added as a <script>: the api's Content-Security-Policy
  // refuses inline scripts (a script tag with axe's source is one), and a test must not weaken it.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SCRIPT);
  return page.evaluate(async (tags) => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const axe = (window as any).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return result.violations.map((violation: any) => ({
      id: violation.id,
      impact: violation.impact ?? null,
      help: violation.help,
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      targets: violation.nodes.map((node: any) => node.target.join(' ')),
    }));
  }, WCAG_TAGS);
}

/** What has focus: its tag, role, accessible name as far as the DOM says, and its text. */
export interface FocusedElement {
  tag: string;
  role: string | null;
  name: string;
  text: string;
}

/** The focused element (document.activeElement), described; tag "body" when focus was lost. */
export function focused(page: Page): Promise<FocusedElement> {
  return page.evaluate(() => {
    const element = document.activeElement ?? document.body;
    const byIds = (ids: string | null) =>
      (ids ?? '')
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' ')
        .trim();
    const labels = 'labels' in element ? Array.from((element as HTMLInputElement).labels ?? []) : [];
    const name =
      element.getAttribute('aria-label') ??
      (byIds(element.getAttribute('aria-labelledby')) ||
        labels.map((label) => label.textContent ?? '').join(' ') ||
        (element.textContent ?? ''));
    return {
      tag: element.tagName.toLowerCase(),
      role: element.getAttribute('role'),
      name: name.replace(/\s+/g, ' ').trim().slice(0, 120),
      text: (element.textContent ?? '').replace(/\s+/g, ' ').trim(),
    };
  });
}

/** Is the control the one with focus? */
export function hasFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element === document.activeElement);
}

/** The text of the elements a control's aria-describedby names: what a screen reader reads after its name. */
export function description(locator: Locator): Promise<string> {
  return locator.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

/** Collects the page's console errors and failed requests the browser logs, from now on. */
export function collectConsoleErrors(page: Page): { errors: string[]; stop: () => void } {
  const errors: string[] = [];
  const onConsole = (message: { type(): string; text(): string }) => {
    if (message.type() === 'error') errors.push(message.text());
  };
  page.on('console', onConsole);
  return { errors, stop: () => page.off('console', onConsole) };
}

/**
 * A JSON request from inside the page with its session cookie and CSRF token (the way the UI sends
 * one), for setting up what a test needs without clicking through it.
 */
export async function pageRequest(
  page: Page,
  method: string,
  path: string,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const csrf = document.cookie
        .split(';')
        .map((part) => part.trim().split('='))
        .find(([key]) => key === 'kairos_csrf')?.[1];
      const response = await fetch(path, {
        method,
        credentials: 'same-origin',
        headers: {
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(csrf ? { 'x-csrf-token': decodeURIComponent(csrf) } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    { method, path, body },
  );
}

/**
 * A connected device, the way the CLI gets one: it asks for a code, the signed-in page approves it,
 * the device's next poll takes the access token (Settings lists a device from then on).
 */
export async function connectDevice(h: BrowserHarness, clientName: string): Promise<void> {
  const code = await h.request('/api/auth/device/code', { method: 'POST', body: { client_name: clientName } });
  const approved = await pageRequest(h.page, 'POST', '/api/auth/device/approve', { user_code: code.body.user_code });
  if (approved.status !== 200) throw new Error(`approving the device code answered ${approved.status}`);
  const token = await h.request('/api/auth/device/token', {
    method: 'POST',
    body: { device_code: code.body.device_code, grant_type: 'urn:ietf:params:oauth:grant-type:device_code' },
  });
  if (token.status !== 200) throw new Error(`the device's token request answered ${token.status}`);
}
