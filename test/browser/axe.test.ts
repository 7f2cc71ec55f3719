/**
 * axe-core over every page of the web UI in each state a person meets it (empty, filled, with
 * errors, with a one-time secret, paused, archived, with response rules; desktop and 360 px), with the scheduling engine
 * running so runs and test results are real: 0 violations of the WCAG 2.0/2.1/2.2 A and AA rules.
 */
import type { Page } from 'playwright-core';
import { axeViolations, connectDevice, pageRequest, type AxeViolation } from './a11y.js';
import { recordPlannerSession, startBrowserHarness, waitFor, type BrowserHarness } from './harness.js';

let h: BrowserHarness;
let narrow: Page;

beforeAll(async () => {
  h = await startBrowserHarness({ engine: true });
  narrow = await h.newPage({ width: 360, height: 740 });
  await h.signIn(h.page, '/');
}, 60_000);
afterAll(() => h?.close());

/** Every page state checked, with what axe found there (expected: nothing). */
async function check(page: Page, state: string): Promise<[string, AxeViolation[]]> {
  // Let the page settle (pending fetches) so axe sees it as a person would.
  await page.waitForLoadState('networkidle', { timeout: 1000 }).catch(() => undefined);
  return [state, await axeViolations(page)];
}

const clean = (states: [string, AxeViolation[]][]) =>
  expect(Object.fromEntries(states)).toEqual(Object.fromEntries(states.map(([state]) => [state, []])));

describe('axe-core: 0 violations of WCAG 2.0/2.1/2.2 A and AA', () => {
  let jobId: string;
  let endpointId: string;

  it('dashboard and jobs, empty and filled, desktop and 360 px', async () => {
    const { page } = h;
    const states: [string, AxeViolation[]][] = [];
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByText('No jobs yet').first().waitFor();
    states.push(await check(page, 'dashboard, a new account'));
    await page.goto(h.url('/jobs'));
    await page.getByText('No jobs yet.').waitFor();
    states.push(await check(page, 'jobs, none yet'));
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.getByLabel('Name', { exact: true }).and(page.locator('[aria-invalid="true"]')).waitFor();
    states.push(await check(page, 'jobs, the new job form with an error'));

    const job = await pageRequest(page, 'POST', '/api/jobs', { name: 'Order sync', description: 'Shop and stock.' });
    jobId = job.body.id;
    const endpoint = await pageRequest(page, 'POST', `/api/jobs/${jobId}/endpoints`, {
      name: 'Check orders',
      url: `${h.target.origin}/orders`,
      method: 'GET',
      baselineIntervalMs: 1000,
    });
    endpointId = endpoint.body.id;
    await waitFor(
      () => h.api.db.prisma.run.count({ where: { endpointId } }).then((count) => count >= 2),
      15_000,
      'two runs',
    );
    await page.goto(h.url('/jobs'));
    await page.getByRole('table', { name: 'Jobs' }).waitFor();
    states.push(await check(page, 'jobs, one job'));
    await page.goto(h.url('/'));
    await page.getByText(/^Showing /).waitFor();
    states.push(await check(page, 'dashboard with runs'));
    for (const path of ['/', '/jobs']) {
      await narrow.goto(h.url(path));
      await narrow.getByRole('heading', { level: 1 }).waitFor();
      states.push(await check(narrow, `${path} at 360 px`));
    }
    clean(states);
  }, 120_000);

  it('a job, its endpoint form, the endpoint, a run and an analysis session', async () => {
    const { page } = h;
    const states: [string, AxeViolation[]][] = [];
    await page.goto(h.url(`/jobs/${jobId}`));
    await page.getByRole('table', { name: 'Endpoints' }).waitFor();
    states.push(await check(page, 'job'));
    await page.getByRole('button', { name: 'Edit job' }).click();
    states.push(await check(page, 'job, editing'));

    await page.goto(h.url(`/jobs/${jobId}/endpoints/new`));
    await page.getByRole('heading', { name: 'New endpoint' }).waitFor();
    states.push(await check(page, 'new endpoint form'));
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByRole('alert').filter({ hasText: 'The endpoint was not saved.' }).waitFor();
    states.push(await check(page, 'new endpoint form with errors'));
    await page.getByRole('radio', { name: 'Cron schedule' }).check();
    await page.getByLabel('Method', { exact: true }).selectOption('POST');
    await page.getByRole('button', { name: 'Add header' }).click();
    states.push(await check(page, 'new endpoint form, cron, a header and a body'));

    await page.goto(h.url(`/endpoints/${endpointId}`));
    await page.getByRole('table', { name: 'Runs of this endpoint, newest first' }).waitFor();
    states.push(await check(page, 'endpoint'));
    await page.getByRole('button', { name: 'Test now' }).click();
    await page.getByRole('status', { name: 'Test result' }).getByText('HTTP 200').waitFor();
    await page.getByText('Set a hint by hand').click();
    states.push(await check(page, 'endpoint with a test result and the hint forms'));
    await page.getByRole('form', { name: 'Pause the endpoint' }).getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume', exact: true }).waitFor();
    states.push(await check(page, 'endpoint, paused'));
    await narrow.goto(h.url(`/endpoints/${endpointId}`));
    await narrow.getByRole('table', { name: 'Runs of this endpoint, newest first' }).waitFor();
    states.push(await check(narrow, 'endpoint at 360 px'));
    await narrow.goto(h.url(`/jobs/${jobId}`));
    await narrow.getByRole('table', { name: 'Endpoints' }).waitFor();
    states.push(await check(narrow, 'job at 360 px'));

    await page.goto(h.url(`/endpoints/${endpointId}/edit`));
    await page.getByRole('heading', { name: 'Edit endpoint' }).waitFor();
    states.push(await check(page, 'edit endpoint'));

    const run = await h.api.db.prisma.run.findFirstOrThrow({ where: { endpointId } });
    await page.goto(h.url(`/runs/${run.id}`));
    await page.getByRole('region', { name: 'Response body' }).waitFor();
    states.push(await check(page, 'run'));

    await recordPlannerSession(h.api, await h.accountId(), endpointId, 'Orders arrive steadily.');
    const session = await h.api.db.prisma.analysisSession.findFirstOrThrow({ where: { endpointId } });
    await page.goto(h.url(`/analysis-sessions/${session.id}`));
    await page.getByText('propose_interval', { exact: false }).first().waitFor();
    states.push(await check(page, 'analysis session'));
    clean(states);
  }, 120_000);

  it('settings with a one-time secret, channels and devices; the device page; not found', async () => {
    const { page } = h;
    const states: [string, AxeViolation[]][] = [];
    await page.goto(h.url('/settings'));
    await page.getByRole('group', { name: 'Your signing key' }).waitFor();
    states.push(await check(page, 'settings, the signing key shown once'));
    await page.getByRole('group', { name: 'Your signing key' }).getByRole('button', { name: 'Done' }).click();

    await connectDevice(h, 'Axe CLI');
    const channel = await pageRequest(page, 'POST', '/api/notification-channels', {
      name: 'Ops hook',
      type: 'webhook',
      url: `${h.target.origin}/hook`,
      events: ['endpoint.failing'],
    });
    expect(channel).toMatchObject({ status: 201 });
    const keys = page.getByRole('region', { name: 'API keys' });
    await keys.getByLabel('Key name').fill('Axe key');
    await keys.getByRole('button', { name: 'Create API key' }).click();
    await keys.getByRole('group', { name: 'New API key' }).waitFor();
    await page
      .getByRole('region', { name: 'Connected devices' })
      .getByRole('row', { name: /Axe CLI/ })
      .waitFor();
    await page
      .getByRole('region', { name: 'Notifications' })
      .getByRole('row', { name: /Ops hook/ })
      .waitFor();
    const secrets = page.getByRole('region', { name: 'Shared secrets' });
    await secrets.getByLabel('Secret name').fill('AXE_TOKEN');
    await secrets.getByLabel('Secret value').fill('axe-value');
    await secrets.getByRole('button', { name: 'Create secret' }).click();
    await secrets.getByRole('row', { name: /AXE_TOKEN/ }).waitFor();
    states.push(await check(page, 'settings with a new API key, a channel, a device and a secret'));
    await narrow.goto(h.url('/settings'));
    await narrow
      .getByRole('region', { name: 'Connected devices' })
      .getByRole('row', { name: /Axe CLI/ })
      .waitFor();
    states.push(await check(narrow, 'settings at 360 px'));

    await page.goto(h.url('/device'));
    await page.getByRole('heading', { name: 'Connect a device' }).waitFor();
    states.push(await check(page, 'device page'));
    await page.getByLabel('Device code').fill('BBBB-BBBB');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText(/no pending device request/i).waitFor();
    states.push(await check(page, 'device page, an unknown code'));
    const next = await h.request('/api/auth/device/code', { method: 'POST', body: { client_name: 'Second CLI' } });
    await page.getByLabel('Device code').fill(next.body.user_code);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Device approved' }).waitFor();
    states.push(await check(page, 'device approved'));

    await page.goto(h.url('/no-such-page'));
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    states.push(await check(page, 'not found'));
    clean(states);
  }, 120_000);

  it('response rules: the editor with errors, the backtest, the rule in force and a run that matched', async () => {
    const { page } = h;
    const states: [string, AxeViolation[]][] = [];
    const created = await pageRequest(page, 'POST', `/api/jobs/${jobId}/endpoints`, {
      name: 'Watch backlog',
      url: `${h.target.origin}/backlog`,
      method: 'GET',
      baselineIntervalMs: 1000,
      successWhen: { status: ['2xx'], all: [{ path: '$.ok', op: 'eq', value: true }] },
      rules: [{ name: 'backlog high', when: { status: ['2xx'] }, then: { intervalMs: 60_000 } }],
    });
    expect(created.status).toBe(201);
    const watchId: string = created.body.id;
    await waitFor(
      () =>
        h.api.db.prisma.run
          .count({ where: { endpointId: watchId, rulesMatched: { has: 'backlog high' } } })
          .then(Boolean),
      15_000,
      'a run matching the rule',
    );

    await page.goto(h.url(`/endpoints/${watchId}`));
    await page.getByRole('region', { name: 'Response rules' }).getByText('Rule in force: backlog high').waitFor();
    await page.getByRole('cell', { name: 'backlog high' }).first().waitFor();
    states.push(await check(page, 'endpoint with a rule in force and runs that matched it'));
    await narrow.goto(h.url(`/endpoints/${watchId}`));
    await narrow.getByRole('region', { name: 'Response rules' }).getByText('Rule in force: backlog high').waitFor();
    states.push(await check(narrow, 'endpoint with a rule in force at 360 px'));

    const run = await h.api.db.prisma.run.findFirstOrThrow({ where: { endpointId: watchId } });
    await page.goto(h.url(`/runs/${run.id}`));
    await page.getByText('backlog high').waitFor();
    states.push(await check(page, 'run that matched a rule'));

    await page.goto(h.url(`/endpoints/${watchId}/edit`));
    await page.getByLabel('Rule 1 name').waitFor();
    await page.getByRole('button', { name: 'Add a condition to rule 1' }).click();
    await page.getByLabel('Rule 1 condition 1 path').fill('$.backlog');
    await page.getByLabel('Rule 1 condition 1 operator').selectOption('gt');
    await page.getByLabel('Rule 1 condition 1 value').fill('100');
    await page.getByText('Reads: backlog is greater than 100').waitFor();
    await page.getByRole('button', { name: 'Add a rule' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('alert').filter({ hasText: 'The endpoint was not saved.' }).waitFor();
    states.push(await check(page, 'edit endpoint, the rules editor with errors'));

    await page.getByRole('button', { name: 'Remove rule 2' }).click();
    await page.getByRole('button', { name: 'Run the backtest' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Replayed \d+ runs?/ })
      .waitFor();
    await page.getByRole('table', { name: /^Rules matched per run/ }).waitFor();
    states.push(await check(page, 'edit endpoint with a backtest'));
    await narrow.goto(h.url(`/endpoints/${watchId}/edit`));
    await narrow.getByRole('button', { name: 'Run the backtest' }).click();
    await narrow.getByRole('table', { name: /^Rules matched per run/ }).waitFor();
    states.push(await check(narrow, 'edit endpoint with a backtest at 360 px'));
    clean(states);
  }, 120_000);

  it('an archived endpoint and job', async () => {
    const { page } = h;
    const states: [string, AxeViolation[]][] = [];
    expect((await pageRequest(page, 'POST', `/api/jobs/${jobId}/archive`)).status).toBe(200);
    await page.goto(h.url(`/endpoints/${endpointId}`));
    await page.getByRole('status').filter({ hasText: 'This endpoint is archived' }).waitFor();
    states.push(await check(page, 'endpoint, archived'));
    await page.goto(h.url(`/jobs/${jobId}`));
    await page.getByText('This job is archived.').waitFor();
    states.push(await check(page, 'job, archived'));
    clean(states);
  }, 60_000);
});
