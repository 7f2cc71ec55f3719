import { parsePlannerToolInput, plannerToolDefinitions } from './tools.js';

describe('plannerToolDefinitions', () => {
  const tools = plannerToolDefinitions();

  it('lists the seven tools (names exact) and the final report', () => {
    expect(tools.map((tool) => tool.name)).toEqual([
      'propose_interval',
      'propose_next_time',
      'pause_until',
      'clear_hints',
      'get_latest_response',
      'get_response_history',
      'get_sibling_latest_responses',
      'submit_analysis',
    ]);
  });

  it('gives each a closed JSON Schema object with its required fields', () => {
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool.input_schema]));
    for (const tool of tools) {
      expect(tool.description.length).toBeGreaterThan(20);
      expect(tool.input_schema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.input_schema.$schema).toBeUndefined();
    }
    expect(byName.propose_interval!.required).toEqual(['intervalMs', 'ttlMinutes', 'reason']);
    expect(byName.propose_next_time!.required).toEqual(['nextRunAt', 'reason']);
    expect(byName.pause_until!.required).toEqual(['pausedUntil', 'reason']);
    expect(byName.clear_hints!.required).toEqual(['reason']);
    expect(byName.get_response_history!.required).toBeUndefined();
    expect(byName.submit_analysis!.required).toEqual(['reasoning', 'confidence', 'nextAnalysisInMinutes']);
    // Short schemas: no timestamp regex sent to the model on every call.
    expect(JSON.stringify(tools).length).toBeLessThan(6000);
  });

  it('says which runs the history holds and how many siblings the snapshot shows', () => {
    const describedAs = (name: string) => tools.find((tool) => tool.name === name)!.description;
    expect(describedAs('get_response_history')).toContain('scheduled runs of this endpoint in the last 24 hours');
    expect(describedAs('get_response_history')).toContain('test runs left out');
    expect(describedAs('get_sibling_latest_responses')).toContain('at most 20 of them');
  });
});

describe('parsePlannerToolInput', () => {
  it('accepts valid input', () => {
    expect(
      parsePlannerToolInput('propose_interval', { intervalMs: 30_000, ttlMinutes: 0.05, reason: ' surge ' }),
    ).toEqual({
      ok: true,
      value: { intervalMs: 30_000, ttlMinutes: 0.05, reason: 'surge' },
    });
    expect(parsePlannerToolInput('get_latest_response', undefined)).toEqual({ ok: true, value: {} });
    expect(parsePlannerToolInput('pause_until', { pausedUntil: null, reason: 'r' }).ok).toBe(true);
    expect(parsePlannerToolInput('propose_next_time', { nextRunAt: '2026-11-21T12:00:00+02:00', reason: 'r' }).ok).toBe(
      true,
    );
  });

  it.each([
    ['propose_interval', { intervalMs: 999, ttlMinutes: 30, reason: 'r' }, 'intervalMs: must be at least 1000 ms'],
    ['propose_interval', { intervalMs: 1500.5, ttlMinutes: 30, reason: 'r' }, 'intervalMs: must be a whole number'],
    ['propose_interval', { intervalMs: 5000, ttlMinutes: 1441, reason: 'r' }, 'ttlMinutes: must be at most 1440'],
    ['propose_interval', { intervalMs: 5000, ttlMinutes: 30 }, 'reason:'],
    ['propose_interval', { intervalMs: 5000, ttlMinutes: 30, reason: 'r', endpointId: 'x' }, 'endpointId'],
    ['propose_next_time', { nextRunAt: 'tomorrow', reason: 'r' }, 'nextRunAt: must be an ISO 8601 time'],
    ['propose_next_time', { nextRunAt: '2026-11-21T12:00:00', reason: 'r' }, 'nextRunAt: must be an ISO 8601 time'],
    ['pause_until', { reason: 'r' }, 'pausedUntil'],
    ['get_response_history', { limit: 51 }, 'limit: must be at most 50'],
    ['submit_analysis', { reasoning: 'x', confidence: 'sure', nextAnalysisInMinutes: 0 }, 'confidence'],
    [
      'submit_analysis',
      { reasoning: 'x', confidence: 'low', nextAnalysisInMinutes: 0 },
      'nextAnalysisInMinutes: must be at least 1',
    ],
  ] as const)('%s refuses %p', (tool, input, message) => {
    const check = parsePlannerToolInput(tool, input);
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.message.startsWith(`invalid input for ${tool}: `)).toBe(true);
      expect(check.message).toContain(message);
    }
  });
});
