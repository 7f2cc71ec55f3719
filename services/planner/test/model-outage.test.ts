/**
 * A model that cannot answer for a while, against the fake model over HTTP: a 429 whose
 * `retry-after` does not fit before the analysis deadline fails the analysis at once as rate-limited,
 * and during an outage the planner stops calling the model for a while (one pause for the whole
 * planner, shown by the API and counted in the metrics) instead of one call per endpoint per retry.
 */
import { metrics } from '@kairos/runtime';
import { overloaded, rateLimited, submitAnalysis } from '../../../test/fake-model.js';
import { createTestEndpoint, runAndAnalyse, sessionsOf, usePlannerTestbed } from './helpers.js';

const bed = usePlannerTestbed();
beforeEach(async () => {
  bed.fake.requests.length = 0;
  // The pause is shared by every planner of the installation (Redis, under the queue prefix).
  const keys = await bed.harness.redis.keys(`${bed.harness.queuePrefix}:planner-model-paused*`);
  if (keys.length > 0) await bed.harness.redis.del(...keys);
});

async function metricValue(name: string): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return (metric?.values ?? []).reduce((sum, value) => sum + value.value, 0);
}

describe('a rate limit longer than the analysis can wait', () => {
  it('fails the analysis at once as rate-limited, after one call', async () => {
    const planner = bed.newPlanner({ timeoutMs: 5000 });
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.script(() => rateLimited(3600));
    const started = Date.now();
    expect(await runAndAnalyse(bed.harness, planner, endpoint)).toMatchObject({ status: 'failed' });
    const tookMs = Date.now() - started;
    process.stdout.write(`a 429 with retry-after 3600 failed the analysis in ${tookMs} ms\n`);
    expect(tookMs).toBeLessThan(2000);
    expect(bed.fake.requests).toHaveLength(1);
    const [session] = await sessionsOf(bed.harness, endpoint.id);
    expect(session!.errorMessage).toMatch(
      /^model rate limit reached \(HTTP 429: .*\): the model asks to wait 3600 s, past the analysis deadline$/,
    );
    expect(session!.durationMs).toBeLessThan(2000);
  });

  it('still waits for a retry-after that fits', async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.script((request) =>
      bed.fake.requests.filter((seen) => seen.context === request.context).length === 1
        ? rateLimited(1)
        : submitAnalysis('fine after the wait'),
    );
    const started = Date.now();
    expect(await runAndAnalyse(bed.harness, bed.planner, endpoint)).toMatchObject({ status: 'completed' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(bed.fake.requests).toHaveLength(2);
  });
});

describe('a model outage', () => {
  it('pauses model calls for the whole planner instead of calling once per endpoint per retry', async () => {
    const planner = bed.newPlanner({ modelPause: { failuresInARow: 5, firstPauseMs: 1500, longestPauseMs: 60_000 } });
    const endpoints = await Promise.all(
      Array.from({ length: 8 }, () => createTestEndpoint(bed.api, bed.account.accountId)),
    );
    bed.fake.script(() => overloaded());
    const pausesBefore = await metricValue('kairos_planner_model_pauses_total');
    const outcomes = [];
    for (const endpoint of endpoints) outcomes.push(await runAndAnalyse(bed.harness, planner, endpoint));

    // Without the pause: 8 analyses × 2 calls (one retry) = 16 calls.
    expect(bed.fake.requests).toHaveLength(5);
    expect(outcomes.slice(0, 3).map((outcome) => outcome.kind)).toEqual(['analysed', 'analysed', 'analysed']);
    expect(outcomes.slice(3)).toEqual(Array.from({ length: 5 }, () => ({ kind: 'deferred', reason: 'model-paused' })));
    expect(await metricValue('kairos_planner_model_pauses_total')).toBe(pausesBefore + 1);
    expect(await metricValue('kairos_planner_model_paused')).toBe(1);

    const account = (await bed.api.get('/api/account')).body;
    expect(account.aiPlanner.pausedUntil).not.toBeNull();
    expect(Date.parse(account.aiPlanner.pausedUntil) - Date.now()).toBeGreaterThan(0);
    expect(Date.parse(account.aiPlanner.pausedUntil) - Date.now()).toBeLessThanOrEqual(1500);
    expect(account.aiPlanner.pauseReason).toMatch(/^5 model calls failed in a row \(last: model overloaded/);

    // After the pause one call tries again; it succeeds and the pause is over.
    bed.fake.play([submitAnalysis('the model is back')]);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect(await runAndAnalyse(bed.harness, planner, endpoints[3]!)).toMatchObject({ status: 'completed' });
    expect((await bed.api.get('/api/account')).body.aiPlanner).toEqual({ pausedUntil: null, pauseReason: null });
    expect(await metricValue('kairos_planner_model_paused')).toBe(0);
  });

  it('pauses at once for a rate limit longer than an analysis can wait', async () => {
    const planner = bed.newPlanner({ timeoutMs: 5000 });
    const endpoints = await Promise.all(
      Array.from({ length: 3 }, () => createTestEndpoint(bed.api, bed.account.accountId)),
    );
    bed.fake.script(() => rateLimited(120));
    const outcomes = [];
    for (const endpoint of endpoints) outcomes.push(await runAndAnalyse(bed.harness, planner, endpoint));
    expect(bed.fake.requests).toHaveLength(1);
    expect(outcomes.slice(1)).toEqual([
      { kind: 'deferred', reason: 'model-paused' },
      { kind: 'deferred', reason: 'model-paused' },
    ]);
    const { pausedUntil } = (await bed.api.get('/api/account')).body.aiPlanner;
    expect(Date.parse(pausedUntil) - Date.now()).toBeGreaterThan(110_000);
    expect((await sessionsOf(bed.harness, endpoints[1]!.id)).length).toBe(0);
  });
});
