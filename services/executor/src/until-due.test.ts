import { untilDue } from './run-execution.js';

/** Busy-waits: the event loop's cached clock, which a timer counts from, falls this far behind. */
function block(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

it("never returns before the run's time, even when the event loop's clock is behind", async () => {
  // A batch of admissions settles in one turn of the event loop: the runs admitted last start their
  // timers several milliseconds after the loop last read its clock. Such a timer fires that much early.
  for (let index = 0; index < 10; index += 1) {
    const scheduledAt = new Date(Date.now() + 8);
    block(5);
    await untilDue(scheduledAt);
    expect(Date.now()).toBeGreaterThanOrEqual(scheduledAt.getTime());
  }
});

it('waits at most MAX_DISPATCH_WAIT_MS (1 s) for a run planned further ahead', async () => {
  const started = Date.now();
  await untilDue(new Date(started + 60_000));
  const waited = Date.now() - started;
  expect(waited).toBeGreaterThanOrEqual(1000);
  expect(waited).toBeLessThan(1500);
});

it('hands back no wait for a run that is due already, and a wait for one that is not', async () => {
  expect(untilDue(new Date(Date.now() - 1))).toBeNull();
  expect(untilDue(new Date(Date.now()))).toBeNull();
  const scheduledAt = new Date(Date.now() + 20);
  const wait = untilDue(scheduledAt);
  expect(wait).toBeInstanceOf(Promise);
  await wait;
  expect(Date.now()).toBeGreaterThanOrEqual(scheduledAt.getTime());
});
