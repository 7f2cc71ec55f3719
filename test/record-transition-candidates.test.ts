/**
 * The recorder skips the notification transition statement (applyEndpointTransitions) for a batch
 * whose recorded runs leave no endpoint failing or marked failing: recordScheduledRuns names the
 * endpoints that may change state, read from the row its own update wrote. This checks that it
 * names exactly those, through a failing → recovered cycle, against the real statements: an
 * endpoint left out while it needs a transition would lose a notification or an auto-pause.
 */
import { type Database } from '@kairos/db';
import { applyEndpointTransitions, recordScheduledRuns, type RunOutcome } from '@kairos/db/system';
import { useTestDatabase } from './db.js';
import { runOutcome, seedEndpoint } from './runs-fixtures.js';

let db: Database;
useTestDatabase(2, (opened) => (db = opened));

let clock = Date.now() - 3_600_000;

function run(endpoint: { accountId: string; endpointId: string }, status: 'success' | 'failed'): RunOutcome {
  clock += 1000;
  return runOutcome(endpoint, new Date(clock), status);
}

const eventTypes = async (endpointIds: string[]) =>
  (await applyEndpointTransitions(db, endpointIds, new Date())).map((event) => event.payload.type);

it('names the endpoints whose state may change, and only those', async () => {
  const query = (sql: string, values?: unknown[]) => db.pool.query(sql, values);
  const healthy = await seedEndpoint(query);
  const flaky = await seedEndpoint(query);
  // Failing after one failure: each step below moves the flaky endpoint's state.
  await db.pool.query(`UPDATE accounts SET "notifyFailureThreshold" = 1 WHERE id = $1`, [flaky.accountId]);

  // Successes on healthy endpoints: nothing can change, nothing is named.
  let recorded = await recordScheduledRuns(db, [run(healthy, 'success'), run(flaky, 'success')]);
  expect(recorded.ids.size).toBe(2);
  expect(recorded.transitionCandidates).toEqual([]);
  expect(await eventTypes([healthy.endpointId, flaky.endpointId])).toEqual([]);

  // A failure: its endpoint is named, and becomes failing.
  recorded = await recordScheduledRuns(db, [run(healthy, 'success'), run(flaky, 'failed')]);
  expect(recorded.transitionCandidates).toEqual([flaky.endpointId]);
  expect(await eventTypes(recorded.transitionCandidates)).toEqual(['endpoint.failing']);

  // A success on the failing endpoint: failureCount is 0 again, but failingSince still names it.
  recorded = await recordScheduledRuns(db, [run(flaky, 'success')]);
  expect(recorded.transitionCandidates).toEqual([flaky.endpointId]);
  expect(await eventTypes(recorded.transitionCandidates)).toEqual(['endpoint.recovered']);

  // Recovered: healthy again, so named no more.
  recorded = await recordScheduledRuns(db, [run(flaky, 'success')]);
  expect(recorded.transitionCandidates).toEqual([]);
  expect(await eventTypes([flaky.endpointId])).toEqual([]);

  // A redelivered run (same id) records nothing and names nothing.
  const again = run(flaky, 'failed');
  expect((await recordScheduledRuns(db, [again])).transitionCandidates).toEqual([flaky.endpointId]);
  const redelivered = await recordScheduledRuns(db, [again]);
  expect(redelivered.ids.size).toBe(0);
  expect(redelivered.transitionCandidates).toEqual([]);
});
