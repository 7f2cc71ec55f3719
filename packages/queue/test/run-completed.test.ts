/**
 * A `run-completed` job announces one recorder batch (runsCompletedPayload); a job of the shape
 * before batches (one run) still reads as its one run, so jobs left in Redis across an upgrade are
 * recomputed; anything else is refused, never read as no runs.
 */
import { randomUUID } from 'node:crypto';
import { completedRunsOf, type RunCompletedPayload } from '../src/index.js';

const run = (status: 'success' | 'failed' = 'success'): RunCompletedPayload => ({
  runId: randomUUID(),
  endpointId: randomUUID(),
  accountId: randomUUID(),
  status,
  source: 'baseline-interval',
  scheduleVersion: 7,
});

it('reads a batch as its runs, in order', () => {
  const runs = [run(), run('failed'), run()];
  expect(completedRunsOf({ runs })).toEqual(runs);
});

it('reads a job queued before batches as its one run', () => {
  const single = run();
  expect(completedRunsOf(single)).toEqual([single]);
});

it.each([
  ['an empty batch', { runs: [] }],
  ['a run without its endpoint', { runs: [{ ...run(), endpointId: undefined }] }],
  ['nothing', {}],
])('refuses %s', (_name, data) => {
  expect(() => completedRunsOf(data)).toThrow();
});
