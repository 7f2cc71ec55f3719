/**
 * Jobs, endpoints and runs in a real browser, with the scheduling engine running: create a job and
 * an endpoint on a 1 s interval against a local target, watch runs appear while the page is never
 * reloaded, test-run it, open a run, pause and resume the endpoint and the job, edit it, archive
 * it. The tests run in order on one signed-in page, each continuing where the last one stopped.
 */
import {
  acceptNextDialog,
  recordPlannerSession,
  screenshot,
  startBrowserHarness,
  waitFor,
  WAIT_MS,
  type BrowserHarness,
} from './harness.js';

let h: BrowserHarness;
let jobId: string;
let endpointId: string;

beforeAll(async () => {
  h = await startBrowserHarness({ engine: true });
  await h.signIn(h.page, '/jobs');
}, 60_000);
afterAll(() => h?.close());

const UUID = '[0-9a-f-]{36}';
const endpointRow = () => h.api.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
const runsTable = (page = h.page) => page.getByRole('table', { name: 'Runs of this endpoint, newest first' });
/** Opens the endpoint's page unless it is open already (so one failing test does not fail the next). */
async function openEndpoint(): Promise<void> {
  if (new URL(h.page.url()).pathname !== `/endpoints/${endpointId}`)
    await h.page.goto(h.url(`/endpoints/${endpointId}`));
  await h.page.getByRole('group', { name: 'Endpoint actions' }).waitFor();
}
/** Rows of the runs table, header excluded. */
const runRows = (page = h.page) => runsTable(page).locator('tbody tr');

describe('jobs', () => {
  it('creates a job from the jobs page', async () => {
    const { page } = h;
    await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
    await page.getByText('No jobs yet.').waitFor();
    await page.getByRole('link', { name: 'New job' }).click();
    await page.getByLabel('Name', { exact: true }).and(page.locator(':focus')).waitFor();

    await page.getByLabel('Name', { exact: true }).fill('Order sync');
    await page.getByLabel('Description', { exact: true }).fill('Keeps the shop and the warehouse in step.');
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.waitForURL(new RegExp(`/jobs/${UUID}$`));
    jobId = new URL(page.url()).pathname.split('/')[2]!;
    await page.getByRole('heading', { name: /Order sync/, level: 1 }).waitFor();
    const job = await h.api.db.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
    expect(job).toMatchObject({
      name: 'Order sync',
      description: 'Keeps the shop and the warehouse in step.',
      status: 'active',
      accountId: await h.accountId(),
    });
  });

  it('adds an endpoint on a 1 s interval against the local target', async () => {
    const { page } = h;
    await page.getByRole('link', { name: 'Add endpoint' }).click();
    await page.waitForURL(h.url(`/jobs/${jobId}/endpoints/new`));
    await page.getByRole('heading', { name: 'New endpoint', level: 1 }).waitFor();
    // Nothing filled in: the form says what is missing, at the fields, and saves nothing.
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByRole('alert').filter({ hasText: 'The endpoint was not saved.' }).waitFor();
    expect(await page.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await h.api.db.prisma.endpoint.count({ where: { jobId } })).toBe(0);

    await page.getByLabel('Name', { exact: true }).fill('Check orders');
    await page.getByLabel('Description', { exact: true }).fill('Polls the shop for new orders.');
    await page.getByLabel('URL', { exact: true }).fill(`${h.target.origin}/orders`);
    await page.getByLabel('Method', { exact: true }).selectOption('GET');
    await page.getByLabel('Interval', { exact: true }).fill('1');
    await page.getByLabel('Period unit').selectOption({ label: 'seconds' });
    await screenshot(page, 'endpoint-form');
    await page.getByRole('button', { name: 'Create endpoint' }).click();

    await page.waitForURL(new RegExp(`/endpoints/${UUID}$`));
    endpointId = new URL(page.url()).pathname.split('/')[2]!;
    await page.getByRole('heading', { name: /Check orders/, level: 1 }).waitFor();
    expect(await endpointRow()).toMatchObject({
      jobId,
      name: 'Check orders',
      url: `${h.target.origin}/orders`,
      method: 'GET',
      baselineIntervalMs: 1000,
      baselineCron: null,
    });
  });
});

describe('endpoint page', () => {
  it('shows new runs as they happen, without reloading the page', async () => {
    const { page } = h;
    // A marker on the document and a count of main-frame navigations: both prove no reload.
    await page.evaluate('window.__kairosNotReloaded = true');
    let navigations = 0;
    const onNavigate = (frame: { parentFrame(): unknown }) => {
      if (frame.parentFrame() === null) navigations += 1;
    };
    page.on('framenavigated', onNavigate);

    // Runs are told apart by their links (the table shows one page, so counting rows would stop at 20).
    const shownRuns = () =>
      runsTable()
        .getByRole('link')
        .evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    await runRows().first().waitFor({ timeout: 15_000 });
    const before = new Set(await shownRuns());
    await waitFor(
      async () => (await shownRuns()).filter((href) => !before.has(href)).length >= 2,
      15_000,
      'two new runs in the runs table',
    );
    page.off('framenavigated', onNavigate);
    expect(navigations).toBe(0);
    expect(await page.evaluate('window.__kairosNotReloaded')).toBe(true);
    expect(h.target.requests.filter((request) => request.url === '/orders').length).toBeGreaterThanOrEqual(3);
    await runsTable().getByText('success').first().waitFor();
  }, 45_000);

  it('test-runs the endpoint and shows the result', async () => {
    const { page } = h;
    await openEndpoint();
    await page.getByRole('group', { name: 'Endpoint actions' }).getByRole('button', { name: 'Test now' }).click();
    const run = await waitFor(
      () => h.api.db.prisma.run.findFirst({ where: { endpointId, source: 'test' } }),
      WAIT_MS,
      'the test run',
    );
    expect(run).toMatchObject({ status: 'success', statusCode: 200 });
    // The result section is a live region (role status), named by its heading.
    const result = page.getByRole('status', { name: 'Test result' });
    await result.getByText('HTTP 200').waitFor();
    await result.getByRole('link', { name: 'View the test run' }).waitFor();
    expect(await result.getByLabel('Response body excerpt').textContent()).toContain('"ok"');
    // The test run joins the runs table on the next refetch.
    await runsTable().getByRole('link', { name: `Run started` }).first().waitFor();
    await runsTable().getByText('test', { exact: true }).first().waitFor();
    await screenshot(page, 'endpoint');
  });

  it('pauses the endpoint until a time, then resumes it', async () => {
    const { page } = h;
    await openEndpoint();
    const pauseForm = page.getByRole('form', { name: 'Pause the endpoint' });
    const until = new Date(Date.now() + 2 * 3600_000);
    // The browser runs in UTC (harness), so its local time is the ISO time without the zone.
    await pauseForm.getByLabel('Pause until').fill(until.toISOString().slice(0, 16));
    await pauseForm.getByLabel('Pause reason').fill('Shop maintenance');
    await pauseForm.getByRole('button', { name: 'Pause', exact: true }).click();
    const paused = await waitFor(
      async () => {
        const row = await endpointRow();
        return row.pausedUntil ? row : null;
      },
      WAIT_MS,
      'the endpoint to be paused',
    );
    expect(Math.abs(paused.pausedUntil!.getTime() - until.getTime())).toBeLessThan(60_000);
    expect(paused.pauseReason).toBe('Shop maintenance');
    await page.getByText('Shop maintenance', { exact: false }).first().waitFor();
    await page.getByRole('button', { name: 'Resume', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    await waitFor(async () => (await endpointRow()).pausedUntil === null, WAIT_MS, 'the endpoint to resume');
    await page.getByRole('button', { name: 'Resume', exact: true }).waitFor({ state: 'detached' });
    // It runs again on its baseline.
    const resumedAt = new Date();
    await waitFor(
      () =>
        h.api.db.prisma.run.findFirst({
          where: { endpointId, source: 'baseline-interval', startedAt: { gt: resumedAt } },
        }),
      WAIT_MS,
      'a run after resuming',
    );
  });

  it('opens a run from the runs table', async () => {
    const { page } = h;
    await openEndpoint();
    // Opened from the keyboard: the table gains a row every second while the endpoint runs, and a
    // pointer aimed at a row as it moves lands on the cell that took its place.
    await runRows()
      .first()
      .getByRole('link', { name: /^Run started / })
      .press('Enter');
    await page.waitForURL(new RegExp(`/runs/${UUID}$`));
    const runId = new URL(page.url()).pathname.split('/')[2]!;
    const run = await h.api.db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.endpointId).toBe(endpointId);
    expect(await page.getByRole('region', { name: 'Response body' }).textContent()).toContain('"ok": true');
    await screenshot(page, 'run');
    await page.goBack();
    await page.waitForURL(h.url(`/endpoints/${endpointId}`));
  });

  it('edits the endpoint', async () => {
    const { page } = h;
    await openEndpoint();
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.waitForURL(h.url(`/endpoints/${endpointId}/edit`));
    const name = page.getByLabel('Name', { exact: true });
    expect(await name.inputValue()).toBe('Check orders');
    expect(await page.getByLabel('Interval', { exact: true }).inputValue()).toBe('1');
    await name.fill('Check new orders');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(h.url(`/endpoints/${endpointId}`));
    await page.getByRole('heading', { name: /Check new orders/, level: 1 }).waitFor();
    expect((await endpointRow()).name).toBe('Check new orders');
  });
});

describe('analysis session page', () => {
  it("shows a planner's analysis session from the endpoint page", async () => {
    const { page } = h;
    await openEndpoint();
    // The planner is not running here: record a session the way it does.
    await recordPlannerSession(h.api, await h.accountId(), endpointId, 'Orders arrive steadily; no hint needed.');
    // It appears on the next refetch, without a reload.
    const sessions = page.getByRole('region', { name: 'Analysis sessions' });
    await sessions.getByText('Orders arrive steadily', { exact: false }).waitFor();
    await sessions.getByRole('link', { name: /^Analysis / }).click();
    await page.waitForURL(new RegExp(`/analysis-sessions/${UUID}$`));
    await page.getByRole('heading', { name: 'Analysis session', level: 1 }).waitFor();
    await page.getByText('propose_interval', { exact: false }).first().waitFor();
    await screenshot(page, 'analysis-session');
  });
});

describe('job page', () => {
  it('pauses and resumes the job', async () => {
    const { page } = h;
    await page.goto(h.url(`/jobs/${jobId}`));
    await page.getByRole('table', { name: 'Endpoints' }).getByRole('link', { name: 'Check new orders' }).waitFor();
    await page.getByRole('button', { name: 'Pause job' }).click();
    await page.getByText('This job is paused').waitFor();
    expect((await h.api.db.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).status).toBe('paused');
    await page.getByRole('button', { name: 'Resume job' }).click();
    await page.getByRole('button', { name: 'Pause job' }).waitFor();
    expect((await h.api.db.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).status).toBe('active');
    await screenshot(page, 'job');
  });

  it('lists the job on the jobs page', async () => {
    const { page } = h;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).click();
    const row = page.getByRole('table', { name: 'Jobs' }).getByRole('row', { name: /Order sync/ });
    await row.waitFor();
    await screenshot(page, 'jobs');
  });
});

describe('dashboard and narrow screens', () => {
  it('shows the dashboard, also 360 px wide', async () => {
    const { page } = h;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByText(/^Showing /).waitFor();
    await screenshot(page, 'dashboard');

    const narrow = await h.newPage({ width: 360, height: 740 });
    try {
      await narrow.goto(h.url('/'));
      await narrow.getByText(/^Showing /).waitFor();
      await screenshot(narrow, 'dashboard-360');
      expect(await narrow.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      await narrow.goto(h.url(`/endpoints/${endpointId}`));
      await narrow.getByRole('heading', { name: /Check new orders/, level: 1 }).waitFor();
      await runRows(narrow).first().waitFor();
      await screenshot(narrow, 'endpoint-360');
      expect(await narrow.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    } finally {
      await narrow.close();
    }
  });
});

describe('archiving', () => {
  it('archives the endpoint after confirming: it stops for good', async () => {
    const { page } = h;
    await page.goto(h.url(`/endpoints/${endpointId}`));
    const asked = acceptNextDialog(page);
    await page.getByRole('button', { name: 'Archive endpoint' }).click();
    expect(await asked).toContain('Check new orders');
    await waitFor(async () => (await endpointRow()).archivedAt !== null, WAIT_MS, 'the endpoint to be archived');
    await page.getByRole('status').filter({ hasText: 'This endpoint is archived' }).waitFor();
    // Archived is final: no actions are offered any more.
    expect(await page.getByRole('group', { name: 'Endpoint actions' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Test now' }).count()).toBe(0);
  });

  it('archives the job after confirming', async () => {
    const { page } = h;
    await page.getByRole('link', { name: /Order sync/ }).click(); // the breadcrumb back to the job
    await page.waitForURL(h.url(`/jobs/${jobId}`));
    const asked = acceptNextDialog(page);
    await page.getByRole('button', { name: 'Archive job' }).click();
    expect(await asked).toMatch(/Archive the job "Order sync"\?/);
    await page.getByText('This job is archived.').waitFor();
    expect((await h.api.db.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).status).toBe('archived');
    expect(await page.getByRole('link', { name: 'Add endpoint' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Pause job' }).count()).toBe(0);
  });
});
