/**
 * In the planner: a model answer with U+0000 or a lone surrogate (in its reasoning, in a
 * tool's reason, in an unknown tool's name) is recorded with U+FFFD in their place instead of failing
 * the session's write. (The model reads the run row itself, loadPlannerContext in
 * packages/db/src/analysis.ts, so it sees the body exactly as the executor stored it.)
 */
import { callTools, submitAnalysis, toolUse } from '../../../test/fake-model.js';
import { createTestEndpoint, endpointRow, runAndAnalyse, sessionsOf, usePlannerTestbed } from './helpers.js';

const bed = usePlannerTestbed();
beforeEach(() => {
  bed.fake.requests.length = 0;
});

it('records model text and tool input with U+0000 and lone surrogates made storable', async () => {
  const endpoint = await createTestEndpoint(bed.api, bed.account.accountId, { baselineIntervalMs: 60_000 });
  bed.fake.play([
    callTools(
      toolUse('propose_interval', { intervalMs: 30_000, ttlMinutes: 30, reason: 'surge\u0000now' }),
      toolUse('no_such_tool\u0000', { x: '\uD800' }),
    ),
    submitAnalysis('tightened\u0000 \uDC00'),
  ]);
  const outcome = await runAndAnalyse(bed.harness, bed.planner, endpoint, { body: { status: 'surge' } });
  expect(outcome).toMatchObject({ kind: 'analysed', status: 'completed' });

  const row = await endpointRow(bed.harness, endpoint.id);
  expect(row).toMatchObject({ hintIntervalMs: 30_000, hintIntervalReason: 'surge\uFFFDnow' });
  const [session] = await sessionsOf(bed.harness, endpoint.id);
  expect(session!.reasoning).toBe('tightened\uFFFD \uFFFD');
  // Unknown tools are listed too, their names made storable.
  expect(session!.toolsCalled).toEqual(['propose_interval', 'no_such_tool\uFFFD']);
  expect(JSON.stringify(session!.actionsApplied)).not.toMatch(/\\u0000|\\ud800/i);
});
