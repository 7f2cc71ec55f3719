/**
 * GET /metrics on the api: Prometheus text, outside /api and its authentication (an operator's
 * scraper has no API key; KAIROS_METRICS_TOKEN protects it instead: packages/runtime's tests).
 */
import { createApiHarness, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
beforeAll(async () => {
  harness = await createApiHarness();
});
afterAll(async () => {
  await harness.close();
});

describe('GET /metrics', () => {
  it('serves the process registry in Prometheus text format without an API key', async () => {
    const response = await harness.http.get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toContain('text/plain');
    for (const series of [
      'kairos_queue_jobs',
      'kairos_dispatch_lag_seconds',
      'kairos_runs_total',
      'kairos_executor_concurrency_in_use',
      'kairos_planner_tokens_total',
      'kairos_planner_failures_total',
      'kairos_reconcile_repairs_total',
      'process_cpu_seconds_total',
    ]) {
      expect(response.text).toContain(`# TYPE ${series} `);
    }
    expect(response.headers['x-request-id']).toBeDefined();
  });

  it('is not an API route (absent from the OpenAPI document)', async () => {
    const document = await harness.http.get('/api/doc');
    expect(Object.keys(document.body.paths)).not.toContain('/metrics');
  });
});
