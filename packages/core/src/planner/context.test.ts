import { describeRun, renderAnalysisContext, truncateResponseBody, type AnalysisContextInput } from './context.js';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);

describe('truncateResponseBody', () => {
  it.each<[string, unknown, string, boolean, number]>([
    ['null', null, '', false, 0],
    ['an empty string', '', '', false, 0],
    ['short text', 'ok', 'ok', false, 2],
    ['a JSON object, serialised', { status: 'surge' }, '{"status":"surge"}', false, 18],
    ['500 characters exactly', 'a'.repeat(500), 'a'.repeat(500), false, 500],
    ['501 characters', 'a'.repeat(501), 'a'.repeat(500), true, 501],
    ['a JSON array', [1, 2], '[1,2]', false, 5],
  ])('%s', (_case, body, text, truncated, totalChars) => {
    expect(truncateResponseBody(body)).toEqual({ text, truncated, totalChars });
  });

  it('never cuts a character in half', () => {
    const body = `${'a'.repeat(499)}😀tail`;
    const cut = truncateResponseBody(body);
    expect(cut.text).toBe(`${'a'.repeat(499)}😀`);
    expect(cut.truncated).toBe(true);
  });
});

const run = {
  id: 'run-1',
  source: 'baseline-interval',
  status: 'failed' as const,
  statusCode: null,
  durationMs: 30_000,
  startedAt: at(-60_000),
  responseBody: null,
  responseFormat: 'empty',
  responseTruncated: false,
  responseSizeBytes: null,
  errorKind: 'timeout',
  errorMessage: 'timed out after 30000 ms',
};

describe('describeRun', () => {
  it('keeps status and metadata when there is no body', () => {
    expect(describeRun(run)).toEqual({
      runId: 'run-1',
      startedAt: at(-60_000).toISOString(),
      source: 'baseline-interval',
      status: 'failed',
      statusCode: null,
      durationMs: 30_000,
      errorKind: 'timeout',
      errorMessage: 'timed out after 30000 ms',
      responseFormat: 'empty',
      responseSizeBytes: null,
      body: '',
      bodyTruncated: false,
      bodyChars: 0,
    });
  });

  it('marks a body the executor already cut as truncated', () => {
    expect(describeRun({ ...run, responseBody: 'partial', responseTruncated: true }).bodyTruncated).toBe(true);
  });
});

describe('renderAnalysisContext', () => {
  const input = (endpoint: Partial<AnalysisContextInput['endpoint']> = {}): AnalysisContextInput => ({
    now: NOW,
    job: { id: 'job-1', name: 'Orders', description: 'Producer then consumer' },
    endpoint: {
      id: 'ep-1',
      name: 'Consumer',
      description: 'Poll faster during a surge',
      url: 'https://example.com/queue',
      method: 'GET',
      baselineCron: null,
      baselineIntervalMs: 60_000,
      timezone: 'UTC',
      minIntervalMs: 10_000,
      maxIntervalMs: null,
      lastRunAt: at(-60_000),
      failureCount: 2,
      nextRunAt: at(60_000),
      pausedUntil: null,
      pauseOrigin: null,
      pauseReason: null,
      hintIntervalMs: 5000,
      hintIntervalExpiresAt: at(-1),
      hintIntervalOrigin: 'planner',
      hintIntervalReason: 'old',
      hintOneShotAt: null,
      hintOneShotExpiresAt: null,
      hintOneShotOrigin: null,
      hintOneShotReason: null,
      ...endpoint,
    },
    latestRun: run,
    summary: {
      sinceHours: 24,
      runs: 3,
      successes: 1,
      failures: 2,
      avgDurationMs: 100,
      maxDurationMs: 250,
      statusCodes: { '200': 1, none: 2 },
      firstRunAt: at(-3_600_000),
      lastRunAt: at(-60_000),
    },
  });

  const section = (text: string, label: string) => {
    const part = text.split('\n\n').find((each) => each.startsWith(label))!;
    return JSON.parse(part.slice(part.indexOf('\n') + 1));
  };

  it('renders the endpoint, its schedule state, the latest run and the summary as labelled JSON', () => {
    const text = renderAnalysisContext(input());
    expect(text.startsWith(`Current time: ${NOW.toISOString()}`)).toBe(true);
    expect(section(text, 'Job')).toEqual({ id: 'job-1', name: 'Orders', description: 'Producer then consumer' });
    expect(section(text, 'Endpoint under analysis')).toMatchObject({
      id: 'ep-1',
      description: 'Poll faster during a surge',
    });
    expect(section(text, 'Schedule state')).toEqual({
      baseline: { intervalMs: 60_000, intervalHintsSupported: true },
      minIntervalMs: 10_000,
      maxIntervalMs: null,
      failureCount: 2,
      backoffMultiplier: 4,
      nextRunAt: at(60_000).toISOString(),
      lastRunAt: at(-60_000).toISOString(),
      pause: null,
      intervalHint: null, // expired: not shown
      oneShotHint: null,
    });
    expect(section(text, 'Latest run')).toMatchObject({
      status: 'failed',
      statusCode: null,
      errorKind: 'timeout',
      body: '',
    });
    expect(section(text, 'Last 24 hours')).toMatchObject({ runs: 3, statusCodes: { '200': 1, none: 2 } });
  });

  it('says who set an active pause and hint, and that cron endpoints take no interval hints', () => {
    const text = renderAnalysisContext(
      input({
        baselineCron: '0 * * * *',
        baselineIntervalMs: null,
        pausedUntil: at(60_000),
        pauseOrigin: 'user',
        pauseReason: 'deploy',
        hintIntervalExpiresAt: at(60_000),
      }),
    );
    const state = section(text, 'Schedule state');
    expect(state.baseline).toEqual({ cron: '0 * * * *', timezone: 'UTC', intervalHintsSupported: false });
    expect(state.pause).toEqual({ pausedUntil: at(60_000).toISOString(), setBy: 'user', reason: 'deploy' });
    expect(state.intervalHint).toMatchObject({ intervalMs: 5000, setBy: 'planner', reason: 'old' });
  });

  it('renders an endpoint with no run yet', () => {
    expect(renderAnalysisContext({ ...input(), latestRun: null })).toContain(
      'Latest run (body: first 500 characters):\nnone yet',
    );
  });
});
