/**
 * Builders for planner tests: a Planner on the api harness's database and Redis prefix, talking
 * to a fake model server; endpoints created through the API; runs recorded the way the executor
 * records them (db recordScheduledRun), then handed to the planner as the executor's event.
 */
import { newId } from '@kairos/core';
import { type AnalysisSession, type Endpoint } from '@kairos/db';
import { recordScheduledRun, recordTestRun } from '@kairos/db/system';
import { createRedisConnection } from '@kairos/queue';
import { createLogger } from '@kairos/runtime';
import {
  createApiHarness,
  endpointInput,
  type ApiClient,
  type ApiHarness,
  type TestAccount,
} from '../../../test/api.js';
import { REDIS_URL } from '../../../test/env.mjs';
import { startFakeModel, type FakeModel } from '../../../test/fake-model.js';
import { Planner, type PlannerOptions, type PlannerOutcome } from '../src/planner.js';

export function createTestPlanner(
  harness: ApiHarness,
  fake: ModelServer | null,
  overrides: Partial<PlannerOptions> = {},
): Planner {
  const logger = createLogger('planner-test', process.env.KAIROS_TEST_LOGS ?? 'error');
  logger.silent = !process.env.KAIROS_TEST_LOGS;
  return new Planner({
    db: harness.db,
    connect: () => createRedisConnection(REDIS_URL),
    prefix: harness.queuePrefix,
    logger,
    model: fake ? { apiKey: fake.apiKey, baseURL: fake.baseURL, model: 'claude-test', maxRetries: 1 } : null,
    concurrency: 4,
    minAnalysisIntervalMs: 0,
    timeoutMs: 10_000,
    maxSteps: 6,
    ...overrides,
  });
}

type ModelServer = Pick<FakeModel, 'apiKey' | 'baseURL'>;

/** A test file's world: its database and Redis prefix, a fake model, an account (enterprise: 1 s floor). */
export interface PlannerTestbed {
  harness: ApiHarness;
  fake: FakeModel;
  account: TestAccount;
  api: ApiClient;
  /** A planner with the test defaults (no spacing, 10 s timeout, 6 steps), talking to the fake. */
  planner: Planner;
  /** A planner closed with the testbed (model: the fake by default; null = no API key). */
  newPlanner(overrides?: Partial<PlannerOptions>, model?: ModelServer | null): Planner;
  close(): Promise<void>;
}

export async function startPlannerTestbed(): Promise<PlannerTestbed> {
  const harness = await createApiHarness();
  const fake = await startFakeModel();
  const account = await harness.createAccount({ tier: 'enterprise' });
  const planners: Planner[] = [createTestPlanner(harness, fake)];
  return {
    harness,
    fake,
    account,
    api: harness.client(account.apiKey),
    planner: planners[0]!,
    newPlanner(overrides = {}, model = fake) {
      const planner = createTestPlanner(harness, model, overrides);
      planners.push(planner);
      return planner;
    },
    async close() {
      for (const planner of planners) await planner.close();
      await fake.close();
      await harness.close();
    },
  };
}

/**
 * Registers the testbed's set-up and tear-down for this test file; its fields are there from the
 * first test on.
 */
export function usePlannerTestbed(): PlannerTestbed {
  const testbed = {} as PlannerTestbed;
  beforeAll(async () => {
    Object.assign(testbed, await startPlannerTestbed());
  });
  afterAll(() => testbed.close());
  return testbed;
}

export interface TestEndpoint {
  id: string;
  jobId: string;
  accountId: string;
}

export async function createTestEndpoint(
  api: ApiClient,
  accountId: string,
  overrides: Record<string, unknown> = {},
  jobId?: string,
): Promise<TestEndpoint> {
  const job = jobId ?? (await api.post('/api/jobs', { name: 'Planner job', description: 'Orders pipeline' })).body.id;
  const created = await api.post(`/api/jobs/${job}/endpoints`, endpointInput(overrides));
  if (created.status !== 201) throw new Error(`endpoint not created: ${JSON.stringify(created.body)}`);
  return { id: created.body.id, jobId: job, accountId };
}

export interface RunSpec {
  status?: 'success' | 'failed';
  statusCode?: number | null;
  body?: unknown;
  at?: Date;
  source?: string;
}

/** Records a run (a scheduled one advances the endpoint's state, as the executor does) and returns its event. */
export async function recordRun(harness: ApiHarness, endpoint: TestEndpoint, spec: RunSpec = {}) {
  const at = spec.at ?? new Date();
  const status = spec.status ?? 'success';
  const body = spec.body === undefined ? { ok: true } : spec.body;
  const run = {
    id: newId(),
    accountId: endpoint.accountId,
    endpointId: endpoint.id,
    source: spec.source ?? 'baseline-interval',
    status,
    scheduledAt: at,
    startedAt: at,
    completedAt: new Date(at.getTime() + 25),
    durationMs: 25,
    statusCode: spec.statusCode === undefined ? (status === 'success' ? 200 : 500) : spec.statusCode,
    responseBody: body,
    responseFormat: body === null ? 'empty' : typeof body === 'string' ? 'text' : 'json',
    responseTruncated: false,
    responseBodyAltered: false,
    responseSizeBytes: body === null ? 0 : JSON.stringify(body).length,
    errorKind: status === 'failed' ? 'http_status' : null,
    errorMessage: status === 'failed' ? 'HTTP 500' : null,
    attempt: 1,
  };
  // A test run ("Test now") is recorded without touching the endpoint's state, as the executor does.
  if (run.source === 'test') await recordTestRun(harness.db, run);
  else await recordScheduledRun(harness.db, run);
  return { runId: run.id, endpointId: endpoint.id, accountId: endpoint.accountId, status, source: run.source };
}

/** Records a run and lets the planner handle its event. */
export async function runAndAnalyse(
  harness: ApiHarness,
  planner: Planner,
  endpoint: TestEndpoint,
  spec: RunSpec = {},
): Promise<PlannerOutcome> {
  return planner.handleRun(await recordRun(harness, endpoint, spec));
}

export const sessionsOf = (harness: ApiHarness, endpointId: string): Promise<AnalysisSession[]> =>
  harness.db.prisma.analysisSession.findMany({ where: { endpointId }, orderBy: { createdAt: 'asc' } });

export const endpointRow = (harness: ApiHarness, endpointId: string): Promise<Endpoint> =>
  harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });

/** Makes the endpoint's next analysis due now (instead of waiting for the model's choice). */
export const makeAnalysisDue = (harness: ApiHarness, endpointId: string): Promise<Endpoint> =>
  harness.db.prisma.endpoint.update({
    where: { id: endpointId },
    data: { nextAnalysisAt: new Date(Date.now() - 1000) },
  });
