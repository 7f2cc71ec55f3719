/**
 * Teams in a real browser: Alice invites Bob's address from the Members page (the link shown once),
 * Bob signs in (his own account is created), opens the link and accepts, and the account switcher
 * takes him between his account (no jobs) and Alice's, where he sees her job as an editor.
 */
import { createJob } from '@kairos/db';
import type { Page } from 'playwright-core';
import { screenshot, startBrowserHarness, WAIT_MS, type BrowserHarness } from './harness.js';

let h: BrowserHarness;
let bobPage: Page;
const JOB_NAME = "Alice's nightly export";

beforeAll(async () => {
  h = await startBrowserHarness({ user: { name: 'Alice Owner' } });
  await h.signIn(h.page, '/members');
}, 60_000);
afterAll(() => h?.close());

it('invites, accepts in another browser, and switches accounts to see the inviting account’s jobs', async () => {
  const aliceAccountId = await h.accountId();
  await createJob(h.api.db, aliceAccountId, { name: JOB_NAME });

  // Alice invites Bob as an editor: the link is shown once.
  const bobEmail = `bob-${Date.now()}@example.test`;
  await h.page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
  await h.page.getByLabel('E-mail address').fill(bobEmail);
  await h.page.getByLabel('Role', { exact: true }).selectOption('editor');
  await h.page.getByRole('button', { name: 'Invite' }).click();
  const link = await h.page.getByLabel('Invitation link').inputValue();
  expect(link).toMatch(/\/invitations\/accept#token=kinv_/);
  await h.page.getByRole('table', { name: 'Pending invitations' }).getByText(bobEmail).waitFor();

  // Bob signs in from another browser: his first sign-in creates his own account.
  h.idp.state.user = { sub: `bob-${Date.now()}`, email: bobEmail, email_verified: true, name: 'Bob Editor' };
  const bobContext = await h.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  bobContext.setDefaultTimeout(WAIT_MS);
  bobPage = await bobContext.newPage();
  await h.signIn(bobPage, '/');
  const bob = await h.api.db.prisma.user.findFirstOrThrow({ where: { email: bobEmail } });

  // He opens the link and accepts: the session now acts for Alice's account.
  await bobPage.goto(link);
  await bobPage.getByRole('heading', { name: 'Invitation', level: 1 }).waitFor();
  await bobPage.getByRole('button', { name: 'Accept invitation' }).click();
  await bobPage.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
  await bobPage.getByRole('link', { name: JOB_NAME }).waitFor();
  await screenshot(bobPage, 'teams-accepted');

  // The switcher lists both accounts: his own has no job, Alice's has hers.
  const switcher = bobPage.getByLabel('Account', { exact: true });
  expect(await switcher.inputValue()).toBe(aliceAccountId);
  await switcher.selectOption(bob.accountId);
  await bobPage.getByText('No jobs', { exact: false }).first().waitFor();
  expect(await bobPage.getByRole('link', { name: JOB_NAME }).count()).toBe(0);
  await switcher.selectOption(aliceAccountId);
  await bobPage.getByRole('link', { name: JOB_NAME }).waitFor();
  expect(await switcher.inputValue()).toBe(aliceAccountId);

  // Alice's Members page lists Bob as an editor; the invitation is no longer pending.
  await h.page.reload();
  const row = h.page.getByRole('row', { name: new RegExp(bobEmail) });
  await row.waitFor();
  expect(await row.getByLabel(`Role of ${bobEmail}`).inputValue()).toBe('editor');
  await h.page.getByText('No pending invitations.').waitFor();
  await bobContext.close();
}, 90_000);
