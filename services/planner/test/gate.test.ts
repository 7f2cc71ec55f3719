/**
 * When the planner analyses: after the first run, when its chosen time has passed, or when
 * something changed; never twice at once for one endpoint (two planners racing), never within the
 * configured spacing, and a burst of runs is one model conversation. PLANNER_CONCURRENCY bounds the
 * conversations in flight.
 */
import { Queue } from 'bullmq';
import { waitFor } from '../../../test/engine.js';
import { submitAnalysis } from '../../../test/fake-model.js';
import type { PlannerOptions } from '../src/planner.js';
import {
  createTestEndpoint,
  endpointRow,
  makeAnalysisDue,
  recordRun,
  runAndAnalyse,
  sessionsOf,
  usePlannerTestbed,
} from './helpers.js';

const bed = usePlannerTestbed();
beforeEach(() => {
  bed.fake.requests.length = 0;
  bed.fake.maxConcurrent = 0;
  bed.fake.play([submitAnalysis('looked', 'medium', 30)]);
});

const newPlanner = (overrides: Partial<PlannerOptions> = {}) => bed.newPlanner(overrides);

describe('when an analysis happens', () => {
  it('first run, then only when due or when something changed', async () => {
    const planner = newPlanner();
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    expect(await runAndAnalyse(bed.harness, planner, endpoint)).toMatchObject({ kind: 'analysed' });
    expect(await runAndAnalyse(bed.harness, planner, endpoint)).toEqual({ kind: 'deferred', reason: 'not-due' });

    // A status flip is a change.
    expect(await runAndAnalyse(bed.harness, planner, endpoint, { status: 'failed' })).toMatchObject({
      kind: 'analysed',
    });
    // failureCount 1 → 2 moves backoff from 2x to 4x: a change. Past the 32x cap (5) more failures are not.
    expect(await runAndAnalyse(bed.harness, planner, endpoint, { status: 'failed' })).toMatchObject({
      kind: 'analysed',
    });
    for (let failures = 3; failures <= 5; failures += 1) {
      expect(await runAndAnalyse(bed.harness, planner, endpoint, { status: 'failed' })).toMatchObject({
        kind: 'analysed',
      });
    }
    expect(await runAndAnalyse(bed.harness, planner, endpoint, { status: 'failed' })).toEqual({
      kind: 'deferred',
      reason: 'not-due',
    });
    await makeAnalysisDue(bed.harness, endpoint.id);
    expect(await runAndAnalyse(bed.harness, planner, endpoint, { status: 'failed' })).toMatchObject({
      kind: 'analysed',
    });

    const sessions = await sessionsOf(bed.harness, endpoint.id);
    expect(sessions.map((session) => [session.trigger, session.endpointFailureCount])).toEqual([
      ['first-analysis', 0],
      ['status-changed', 1],
      ['failures-rose', 2],
      ['failures-rose', 3],
      ['failures-rose', 4],
      ['failures-rose', 5],
      ['scheduled', 7],
    ]);
  });

  it('never within the spacing: a change then brings the next analysis forward instead', async () => {
    const spaced = newPlanner({ minAnalysisIntervalMs: 120_000 });
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    await runAndAnalyse(bed.harness, spaced, endpoint);
    const [first] = await sessionsOf(bed.harness, endpoint.id);
    expect(first!.nextAnalysisAt!.getTime() - first!.createdAt.getTime()).toBe(30 * 60_000);

    expect(await runAndAnalyse(bed.harness, spaced, endpoint, { status: 'failed' })).toEqual({
      kind: 'deferred',
      reason: 'too-soon',
    });
    const row = await endpointRow(bed.harness, endpoint.id);
    expect(row.nextAnalysisAt!.getTime()).toBe(first!.createdAt.getTime() + 120_000);
    expect(bed.fake.requests).toHaveLength(1);
  });

  it('ignores test runs, archived endpoints and paused jobs', async () => {
    const planner = newPlanner();
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    expect(await runAndAnalyse(bed.harness, planner, endpoint, { source: 'test' })).toEqual({
      kind: 'ignored',
      reason: 'test-run',
    });
    await bed.api.post(`/api/jobs/${endpoint.jobId}/pause`);
    expect(await runAndAnalyse(bed.harness, planner, endpoint)).toEqual({
      kind: 'ignored',
      reason: 'endpoint-inactive',
    });
    await bed.api.post(`/api/jobs/${endpoint.jobId}/resume`);
    await bed.api.post(`/api/jobs/${endpoint.jobId}/endpoints/${endpoint.id}/archive`);
    expect(await runAndAnalyse(bed.harness, planner, endpoint)).toEqual({
      kind: 'ignored',
      reason: 'endpoint-inactive',
    });
    expect(bed.fake.requests).toHaveLength(0);
  });
});

describe('no overlap', () => {
  it('two planners racing on one endpoint: one analysis, one model conversation', async () => {
    const [first, second] = [newPlanner(), newPlanner()];
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.play([{ ...submitAnalysis('slow'), delayMs: 300 }]);
    const event = await recordRun(bed.harness, endpoint);
    const outcomes = await Promise.all([first!.handleRun(event), second!.handleRun(event)]);
    expect(outcomes.filter((outcome) => outcome.kind === 'analysed')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'deferred')).toHaveLength(1);
    expect(bed.fake.requests).toHaveLength(1);

    // While it is in progress (claimed, no session yet), later runs wait for it.
    bed.fake.play([{ ...submitAnalysis('slow again'), delayMs: 500 }]);
    await makeAnalysisDue(bed.harness, endpoint.id);
    const running = first!.handleRun(await recordRun(bed.harness, endpoint));
    await waitFor(async () => bed.fake.requests.length === 2, 5000, 'second analysis started');
    expect(await second!.handleRun(await recordRun(bed.harness, endpoint, { status: 'failed' }))).toEqual({
      kind: 'deferred',
      reason: 'in-progress',
    });
    expect(await running).toMatchObject({ kind: 'analysed' });
    expect(await sessionsOf(bed.harness, endpoint.id)).toHaveLength(2);
  });

  it('a burst of runs through the queue becomes one analysis', async () => {
    const planner = newPlanner({ concurrency: 5, minAnalysisIntervalMs: 60_000 });
    await planner.start();
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.play([{ ...submitAnalysis('one look'), delayMs: 200 }]);
    const queue = new Queue('run-completed-planner', {
      connection: bed.harness.redis,
      prefix: bed.harness.queuePrefix,
    });
    const events = [];
    for (let index = 0; index < 20; index += 1) {
      events.push(await recordRun(bed.harness, endpoint, { status: index % 2 === 0 ? 'success' : 'failed' }));
    }
    await queue.addBulk(events.map((data) => ({ name: 'completed', data })));
    await waitFor(async () => ((await queue.getJobCounts('completed')).completed ?? 0) >= 20, 15_000, 'burst handled');
    await queue.close();
    await planner.close();
    expect(bed.fake.requests).toHaveLength(1);
    expect(await sessionsOf(bed.harness, endpoint.id)).toHaveLength(1);
  });
});

describe('PLANNER_CONCURRENCY', () => {
  it('bounds the model conversations in flight', async () => {
    const planner = newPlanner({ concurrency: 2 });
    await planner.start();
    const endpoints = [];
    for (let index = 0; index < 5; index += 1) endpoints.push(await createTestEndpoint(bed.api, bed.account.accountId));
    bed.fake.play([{ ...submitAnalysis('slow'), delayMs: 300 }]);
    const queue = new Queue('run-completed-planner', {
      connection: bed.harness.redis,
      prefix: bed.harness.queuePrefix,
    });
    const before = (await queue.getJobCounts('completed')).completed ?? 0;
    for (const endpoint of endpoints) await queue.add('completed', await recordRun(bed.harness, endpoint));
    await waitFor(
      async () => ((await queue.getJobCounts('completed')).completed ?? 0) >= before + 5,
      15_000,
      'analyses done',
    );
    await queue.close();
    await planner.close();
    expect(bed.fake.requests).toHaveLength(5);
    expect(bed.fake.maxConcurrent).toBe(2);
  });
});
