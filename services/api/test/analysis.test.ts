/**
 * AI analysis routes: an endpoint's sessions (list view, newest first, limit default 10, offset,
 * sessions / total / hasMore) and one session in detail (actionsApplied, confidence), tenant-scoped.
 */
import { newId } from '@kairos/core';
import { recordAnalysisSession, type NewAnalysisSession } from '@kairos/db';
import { createApiHarness, endpointInput, type ApiClient, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
let api: ApiClient;
let other: ApiClient;
let accountId: string;
let endpointId: string;
const base = Date.parse('2026-11-20T08:00:00.000Z');

const sessionAt = (index: number, overrides: Partial<NewAnalysisSession> = {}): NewAnalysisSession => ({
  id: newId(),
  accountId,
  endpointId,
  status: 'completed',
  shadow: false,
  trigger: 'scheduled',
  model: 'claude-test',
  reasoning: `look ${index}`,
  toolsCalled: ['get_latest_response', 'propose_interval'],
  actionsApplied: [
    {
      tool: 'propose_interval',
      params: { intervalMs: 30_000, ttlMinutes: 30, reason: 'surge' },
      result: 'applied: interval 30000 ms until 2026-11-20T08:30:00.000Z',
      applied: true,
    },
  ],
  inputTokens: 900,
  outputTokens: 100,
  startedAt: new Date(base + index * 60_000),
  durationMs: 1200,
  nextAnalysisAt: new Date(base + index * 60_000 + 15 * 60_000),
  endpointFailureCount: index % 3,
  confidence: 'high',
  errorMessage: null,
  ...overrides,
});

beforeAll(async () => {
  harness = await createApiHarness();
  const account = await harness.createAccount();
  accountId = account.accountId;
  api = harness.client(account.apiKey);
  other = harness.client((await harness.createAccount()).apiKey);
  const job = (await api.post('/api/jobs', { name: 'Analysed' })).body;
  endpointId = (await api.post(`/api/jobs/${job.id}/endpoints`, endpointInput())).body.id;
  for (let index = 0; index < 11; index += 1) {
    await recordAnalysisSession(harness.db, sessionAt(index), new Date(Date.UTC(2026, 10, 1)));
  }
  await recordAnalysisSession(
    harness.db,
    sessionAt(11, {
      status: 'failed',
      reasoning: null,
      toolsCalled: [],
      actionsApplied: [],
      inputTokens: 0,
      outputTokens: 0,
      confidence: null,
      errorMessage: 'model unreachable: Connection error.',
    }),
    new Date(Date.UTC(2026, 10, 1)),
  );
});
afterAll(() => harness.close());

describe('GET /api/endpoints/:endpointId/analysis-sessions', () => {
  it('lists 10 sessions by default, newest first, in the list view', async () => {
    const response = await api.get(`/api/endpoints/${endpointId}/analysis-sessions`);
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(12);
    expect(response.body.hasMore).toBe(true);
    expect(response.body.sessions).toHaveLength(10);
    expect(response.body.sessions.map((session: { createdAt: string }) => session.createdAt)).toEqual(
      Array.from({ length: 10 }, (_, i) => new Date(base + (11 - i) * 60_000).toISOString()),
    );
    const [failed, completed] = response.body.sessions;
    expect(failed).toMatchObject({
      status: 'failed',
      errorMessage: 'model unreachable: Connection error.',
      tokenUsage: 0,
    });
    expect(completed).toEqual({
      id: expect.any(String),
      endpointId,
      createdAt: new Date(base + 10 * 60_000).toISOString(),
      status: 'completed',
      shadow: false,
      trigger: 'scheduled',
      reasoning: 'look 10',
      toolsCalled: ['get_latest_response', 'propose_interval'],
      tokenUsage: 1000,
      durationMs: 1200,
      nextAnalysisAt: new Date(base + 10 * 60_000 + 15 * 60_000).toISOString(),
      endpointFailureCount: 1,
      errorMessage: null,
    });
  });

  it('pages with limit and offset', async () => {
    const last = await api.get(`/api/endpoints/${endpointId}/analysis-sessions?limit=5&offset=10`);
    expect(last.body).toMatchObject({ total: 12, hasMore: false });
    expect(last.body.sessions.map((session: { reasoning: string }) => session.reasoning)).toEqual(['look 1', 'look 0']);
    const exact = await api.get(`/api/endpoints/${endpointId}/analysis-sessions?limit=2&offset=10`);
    expect(exact.body.hasMore).toBe(false);
    const middle = await api.get(`/api/endpoints/${endpointId}/analysis-sessions?limit=2&offset=9`);
    expect(middle.body.hasMore).toBe(true);
  });

  it.each([['limit=0'], ['limit=abc'], ['offset=-1'], ['limit=1001']])('refuses %s with 400', async (query) => {
    const response = await api.get(`/api/endpoints/${endpointId}/analysis-sessions?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
  });

  it("answers 404 for another account's endpoint and an unknown one", async () => {
    expect((await other.get(`/api/endpoints/${endpointId}/analysis-sessions`)).status).toBe(404);
    expect((await api.get(`/api/endpoints/${newId()}/analysis-sessions`)).status).toBe(404);
  });

  it('lists nothing for an endpoint never analysed', async () => {
    const job = (await api.post('/api/jobs', { name: 'Fresh' })).body;
    const fresh = (await api.post(`/api/jobs/${job.id}/endpoints`, endpointInput())).body.id;
    const response = await api.get(`/api/endpoints/${fresh}/analysis-sessions`);
    expect(response.body).toEqual({ sessions: [], total: 0, hasMore: false });
  });
});

describe('GET /api/analysis-sessions/:sessionId', () => {
  it('shows the session with its actions and confidence', async () => {
    const listed = (await api.get(`/api/endpoints/${endpointId}/analysis-sessions?limit=2`)).body.sessions;
    const response = await api.get(`/api/analysis-sessions/${listed[1].id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...listed[1],
      actionsApplied: [
        {
          tool: 'propose_interval',
          params: { intervalMs: 30_000, ttlMinutes: 30, reason: 'surge' },
          result: 'applied: interval 30000 ms until 2026-11-20T08:30:00.000Z',
          applied: true,
        },
      ],
      confidence: 'high',
      model: 'claude-test',
      inputTokens: 900,
      outputTokens: 100,
    });
    const failed = await api.get(`/api/analysis-sessions/${listed[0].id}`);
    expect(failed.body).toMatchObject({ actionsApplied: [], confidence: null, status: 'failed' });
  });

  it("answers 404 for another account's session, an unknown id and a malformed one", async () => {
    const [session] = (await api.get(`/api/endpoints/${endpointId}/analysis-sessions?limit=1`)).body.sessions;
    for (const response of [
      await other.get(`/api/analysis-sessions/${session.id}`),
      await api.get(`/api/analysis-sessions/${newId()}`),
      await api.get('/api/analysis-sessions/not-an-id'),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
  });
});
