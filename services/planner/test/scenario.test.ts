/**
 * Scenario: a recorded day of responses (fixtures/day-of-responses.json: a quiet night, a surge
 * from 10:00 to 14:00, recovery) replayed through the planner on a simulated clock. The fake model
 * plays a simple policy (tighten on a surge, relax when idle, clear its hint otherwise); the runs
 * are scheduled by the engine's own policy (core computeNextRun) and recorded as the executor
 * records them. The schedule must tighten during the surge and relax afterwards, never outside the
 * endpoint's minIntervalMs / maxIntervalMs.
 */
import { readFileSync } from 'node:fs';
import { computeNextRun } from '@kairos/core';
import { createApiHarness, type ApiHarness } from '../../../test/api.js';
import {
  callTools,
  startFakeModel,
  submitAnalysis,
  toolUse,
  type FakeModel,
  type FakeRequest,
  type FakeTurn,
} from '../../../test/fake-model.js';
import { createTestEndpoint, createTestPlanner, endpointRow, recordRun, sessionsOf } from './helpers.js';

interface Sample {
  hour: number;
  statusCode: number;
  body: { status: string; queueDepth: number };
}
const day = JSON.parse(readFileSync(new URL('./fixtures/day-of-responses.json', import.meta.url), 'utf8')) as {
  samples: Sample[];
};

const HOUR_MS = 3_600_000;
const MIN_INTERVAL_MS = 60_000;
const BASELINE_MS = 600_000;
const MAX_INTERVAL_MS = 1_200_000;

let harness: ApiHarness;
let fake: FakeModel;

beforeAll(async () => {
  harness = await createApiHarness();
  fake = await startFakeModel();
});
afterAll(async () => {
  await fake.close();
  await harness.close();
});

/** A labelled JSON section of the planner's context ("Latest run …:\n{…}"). */
function contextSection(context: string, label: string): Record<string, unknown> {
  const section = context.split('\n\n').find((part) => part.startsWith(label));
  if (!section) throw new Error(`no section ${label} in the context`);
  return JSON.parse(section.slice(section.indexOf('\n') + 1)) as Record<string, unknown>;
}

/** The fake model's policy: reads queueDepth from the latest body and its own hint from the state. */
function policy(request: FakeRequest): FakeTurn {
  const latest = contextSection(request.context, 'Latest run');
  const depth = (JSON.parse(String(latest.body)) as { queueDepth: number }).queueDepth;
  const state = contextSection(request.context, 'Schedule state') as { intervalHint: { setBy: string } | null };
  const surge = depth >= 100;
  const idle = depth <= 3;
  if (request.step > 0) {
    return submitAnalysis(`queueDepth ${depth}`, 'high', surge ? 5 : idle ? 30 : 15);
  }
  if (surge) {
    return callTools(toolUse('propose_interval', { intervalMs: 30_000, ttlMinutes: 30, reason: `surge: ${depth}` }));
  }
  if (idle) {
    return callTools(toolUse('propose_interval', { intervalMs: 3_600_000, ttlMinutes: 60, reason: 'idle queue' }));
  }
  if (state.intervalHint?.setBy === 'planner') return callTools(toolUse('clear_hints', { reason: 'back to normal' }));
  return submitAnalysis(`queueDepth ${depth}: baseline is right`, 'medium', 15);
}

it('tightens the schedule during a surge and relaxes it after, within the clamps', async () => {
  const account = await harness.createAccount({ tier: 'enterprise' });
  const endpoint = await createTestEndpoint(harness.client(account.apiKey), account.accountId, {
    name: 'Order queue depth',
    description: 'Watch the order queue: poll every minute while status is surge, rarely while idle.',
    baselineIntervalMs: BASELINE_MS,
    minIntervalMs: MIN_INTERVAL_MS,
    maxIntervalMs: MAX_INTERVAL_MS,
  });
  fake.script(policy);
  let clock = (await endpointRow(harness, endpoint.id)).createdAt;
  const planner = createTestPlanner(harness, fake, { now: () => clock, minAnalysisIntervalMs: 60_000 });
  const start = clock.getTime();
  const intervals: { hour: number; intervalMs: number }[] = [];
  let previous: number | null = null;

  for (;;) {
    const next = computeNextRun({ ...(await endpointRow(harness, endpoint.id)), blackouts: null }, clock)!;
    clock = new Date(Math.max(next.nextRunAt.getTime(), clock.getTime()));
    const elapsed = clock.getTime() - start;
    if (elapsed >= 24 * HOUR_MS) break;
    const sample = day.samples[Math.floor(elapsed / HOUR_MS)]!;
    await planner.handleRun(
      await recordRun(harness, endpoint, {
        at: clock,
        body: sample.body,
        statusCode: sample.statusCode,
        source: next.source,
      }),
    );
    if (previous !== null) intervals.push({ hour: elapsed / HOUR_MS, intervalMs: clock.getTime() - previous });
    previous = clock.getTime();
  }
  await planner.close();

  const during = (from: number, to: number) =>
    intervals.filter(({ hour }) => hour >= from && hour < to).map(({ intervalMs }) => intervalMs);
  // Never outside the clamps.
  for (const { intervalMs } of intervals) {
    expect(intervalMs).toBeGreaterThanOrEqual(MIN_INTERVAL_MS);
    expect(intervalMs).toBeLessThanOrEqual(MAX_INTERVAL_MS);
  }
  // Idle night: relaxed past the baseline, up to the max clamp (the model asked for an hour).
  expect(new Set(during(1, 4))).toEqual(new Set([MAX_INTERVAL_MS]));
  // Normal morning: the baseline.
  expect(new Set(during(6, 10))).toEqual(new Set([BASELINE_MS]));
  // The surge is seen within half an hour and the interval tightens to the min clamp (the model
  // asked for 30 s); it stays tight while the surge lasts.
  const firstTight = intervals.find(({ intervalMs }) => intervalMs === MIN_INTERVAL_MS);
  expect(firstTight!.hour).toBeGreaterThan(10);
  expect(firstTight!.hour).toBeLessThan(10.5);
  expect(new Set(during(10.5, 14))).toEqual(new Set([MIN_INTERVAL_MS]));
  // Recovery: back to the baseline within half an hour, and it stays there.
  expect(during(14.5, 21).length).toBeGreaterThan(30);
  expect(new Set(during(14.5, 21))).toEqual(new Set([BASELINE_MS]));

  const sessions = await sessionsOf(harness, endpoint.id);
  const results = sessions.flatMap((session) =>
    (session.actionsApplied as { result: string }[]).map(({ result }) => result),
  );
  expect(results.some((result) => result.includes('clamped to minIntervalMs 60000 ms'))).toBe(true);
  expect(results.some((result) => result.includes('clamped to maxIntervalMs 1200000 ms'))).toBe(true);
  expect(results.some((result) => result.startsWith('applied: cleared the interval hint'))).toBe(true);
  expect(sessions.every((session) => session.status === 'completed')).toBe(true);
  // One conversation per due time, not per run: about 380 runs, far fewer analyses.
  expect(intervals.length).toBeGreaterThan(300);
  expect(sessions.length).toBeLessThan(130);
}, 180_000);
