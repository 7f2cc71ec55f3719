/**
 * A local or compatible model: ANTHROPIC_BASE_URL and PLANNER_MODEL, read by the planner's
 * configuration, send every model call to that server with that model name. Two fake Messages API
 * servers on two ports: the one the configuration names answers; the other hears nothing.
 */
import { startFakeModel, submitAnalysis, type FakeModel } from '../../../test/fake-model.js';
import { loadPlannerConfig, modelSettingsOf } from '../src/config.js';
import { createTestEndpoint, runAndAnalyse, sessionsOf, usePlannerTestbed } from './helpers.js';

const bed = usePlannerTestbed();
let local: FakeModel;
beforeAll(async () => {
  local = await startFakeModel({ apiKey: 'local-key' });
});
afterAll(() => local.close());

const baseEnv = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/unused', REDIS_URL: 'redis://127.0.0.1:6379' };

it('sends the analysis to the server and model the configuration names', async () => {
  expect(new URL(local.baseURL).port).not.toBe(new URL(bed.fake.baseURL).port);
  const config = loadPlannerConfig({
    ...baseEnv,
    ANTHROPIC_API_KEY: 'local-key',
    ANTHROPIC_BASE_URL: local.baseURL,
    PLANNER_MODEL: 'local-model-7b',
  });
  const settings = modelSettingsOf(config);
  expect(settings).toEqual({ apiKey: 'local-key', baseURL: local.baseURL, model: 'local-model-7b', maxRetries: 1 });

  local.play([submitAnalysis('answered by the local model')]);
  bed.fake.requests.length = 0;
  const planner = bed.newPlanner({ model: settings });
  const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
  await runAndAnalyse(bed.harness, planner, endpoint);

  expect(local.requests).toHaveLength(1);
  expect(local.requests[0]!.body.model).toBe('local-model-7b');
  expect(JSON.stringify(local.requests[0]!.headers)).toContain('local-key');
  expect(bed.fake.requests).toHaveLength(0);
  const [session] = await sessionsOf(bed.harness, endpoint.id);
  expect(session).toMatchObject({
    status: 'completed',
    model: 'local-model-7b',
    reasoning: 'answered by the local model',
  });
});

it('defaults to the Anthropic API and the default model, and refuses a base URL that is not a URL', () => {
  const config = loadPlannerConfig({ ...baseEnv, ANTHROPIC_API_KEY: 'key' });
  expect(modelSettingsOf(config)).toEqual({
    apiKey: 'key',
    baseURL: undefined,
    model: 'claude-sonnet-5-5',
    maxRetries: 1,
  });
  expect(modelSettingsOf(loadPlannerConfig({ ...baseEnv, ANTHROPIC_BASE_URL: local.baseURL }))).toBeNull();
  expect(() => loadPlannerConfig({ ...baseEnv, ANTHROPIC_BASE_URL: 'not a url' })).toThrow(/ANTHROPIC_BASE_URL/);
});
