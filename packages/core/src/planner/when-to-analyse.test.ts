import { analysisRetryDelayMs, decideAnalysis, type AnalysisGateInput } from './when-to-analyse.js';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);
const MINUTE = 60_000;
const OPTIONS = { minIntervalMs: MINUTE, leaseMs: 2 * MINUTE };

/** Analysed 10 minutes ago (completed, saw 0 failures), next look in 20 minutes; a success after a success. */
const settled = (overrides: Partial<AnalysisGateInput> = {}): AnalysisGateInput => ({
  lastAnalysisAt: at(-10 * MINUTE),
  nextAnalysisAt: at(20 * MINUTE),
  lastSession: { createdAt: at(-10 * MINUTE), status: 'completed', endpointFailureCount: 0 },
  runStatus: 'success',
  previousRunStatus: 'success',
  failureCount: 0,
  ...overrides,
});

describe('decideAnalysis', () => {
  it.each<[string, Partial<AnalysisGateInput>, ReturnType<typeof decideAnalysis>]>([
    ['never analysed', { lastAnalysisAt: null, lastSession: null }, { analyse: true, trigger: 'first-analysis' }],
    ['nothing changed, not due', {}, { analyse: false, reason: 'not-due' }],
    ['its time has come', { nextAnalysisAt: at(-1) }, { analyse: true, trigger: 'scheduled' }],
    ['its time is exactly now', { nextAnalysisAt: NOW }, { analyse: true, trigger: 'scheduled' }],
    ['no next time stored', { nextAnalysisAt: null }, { analyse: true, trigger: 'scheduled' }],
    ['the first run', { previousRunStatus: null }, { analyse: true, trigger: 'first-run' }],
    ['a response rule asks, nothing else changed', { ruleRequested: true }, { analyse: true, trigger: 'rule' }],
    [
      "with the planner's rules in force, a status change wakes nothing",
      { plannerRulesInForce: true, runStatus: 'failed', failureCount: 1 },
      { analyse: false, reason: 'not-due' },
    ],
    [
      "with the planner's rules in force, rising failures wake nothing",
      { plannerRulesInForce: true, runStatus: 'failed', previousRunStatus: 'failed', failureCount: 8 },
      { analyse: false, reason: 'not-due' },
    ],
    [
      "with the planner's rules in force, its own rule wakes it",
      { plannerRulesInForce: true, ruleRequested: true, runStatus: 'failed', failureCount: 1 },
      { analyse: true, trigger: 'rule' },
    ],
    [
      "with the planner's rules in force, its time still comes",
      { plannerRulesInForce: true, nextAnalysisAt: at(-1) },
      { analyse: true, trigger: 'scheduled' },
    ],
    [
      'a response rule asks within the spacing: brought forward to its end',
      {
        ruleRequested: true,
        lastAnalysisAt: at(-30_000),
        lastSession: { createdAt: at(-30_000), status: 'completed', endpointFailureCount: 0 },
      },
      { analyse: false, reason: 'too-soon', pullForwardTo: at(30_000) },
    ],
    [
      'a response rule asks while a failed analysis backs off',
      { ruleRequested: true, lastSession: { createdAt: at(-10 * MINUTE), status: 'failed', endpointFailureCount: 0 } },
      { analyse: false, reason: 'backing-off' },
    ],
    ['success → failed', { runStatus: 'failed', failureCount: 1 }, { analyse: true, trigger: 'status-changed' }],
    [
      'failed → success',
      { runStatus: 'success', previousRunStatus: 'failed' },
      { analyse: true, trigger: 'status-changed' },
    ],
    [
      'failures rose a backoff step (1 → 2)',
      {
        runStatus: 'failed',
        previousRunStatus: 'failed',
        failureCount: 2,
        lastSession: { createdAt: at(-10 * MINUTE), status: 'completed', endpointFailureCount: 1 },
      },
      { analyse: true, trigger: 'failures-rose' },
    ],
    [
      'failures rose past the 32x cap (6 → 9)',
      {
        runStatus: 'failed',
        previousRunStatus: 'failed',
        failureCount: 9,
        lastSession: { createdAt: at(-10 * MINUTE), status: 'completed', endpointFailureCount: 6 },
      },
      { analyse: false, reason: 'not-due' },
    ],
    [
      'in progress (claimed, no session yet)',
      { lastAnalysisAt: at(-30_000), nextAnalysisAt: at(90_000), previousRunStatus: null },
      { analyse: false, reason: 'in-progress' },
    ],
    [
      'in progress, never analysed before',
      { lastAnalysisAt: at(-30_000), lastSession: null, nextAnalysisAt: at(90_000) },
      { analyse: false, reason: 'in-progress' },
    ],
    [
      'a claim whose planner died (lease over)',
      { lastAnalysisAt: at(-3 * MINUTE), nextAnalysisAt: at(-MINUTE) },
      { analyse: true, trigger: 'scheduled' },
    ],
    [
      'due, but inside the spacing',
      {
        lastAnalysisAt: at(-30_000),
        nextAnalysisAt: at(-1),
        lastSession: { createdAt: at(-30_000), status: 'completed', endpointFailureCount: 0 },
      },
      { analyse: false, reason: 'too-soon' },
    ],
    [
      'a change inside the spacing brings the next look forward',
      {
        lastAnalysisAt: at(-30_000),
        lastSession: { createdAt: at(-30_000), status: 'completed', endpointFailureCount: 0 },
        runStatus: 'failed',
        failureCount: 1,
      },
      { analyse: false, reason: 'too-soon', pullForwardTo: at(30_000) },
    ],
    [
      'a change after a failed analysis waits for its backoff',
      {
        runStatus: 'failed',
        failureCount: 1,
        lastSession: { createdAt: at(-10 * MINUTE), status: 'failed', endpointFailureCount: 0 },
      },
      { analyse: false, reason: 'backing-off' },
    ],
    [
      'a skipped analysis (budget) waits for its time too',
      {
        previousRunStatus: null,
        lastSession: { createdAt: at(-10 * MINUTE), status: 'skipped', endpointFailureCount: 0 },
      },
      { analyse: false, reason: 'backing-off' },
    ],
    [
      'the backoff of a failed analysis is over',
      {
        nextAnalysisAt: at(-1),
        lastSession: { createdAt: at(-10 * MINUTE), status: 'failed', endpointFailureCount: 0 },
      },
      { analyse: true, trigger: 'scheduled' },
    ],
  ])('%s', (_case, overrides, expected) => {
    expect(decideAnalysis(settled(overrides), OPTIONS, NOW)).toEqual(expected);
  });

  it('with no spacing, a change right after an analysis is analysed', () => {
    const input = settled({
      lastAnalysisAt: at(-1),
      lastSession: { createdAt: at(-1), status: 'completed', endpointFailureCount: 0 },
      runStatus: 'failed',
      failureCount: 1,
    });
    expect(decideAnalysis(input, { minIntervalMs: 0, leaseMs: MINUTE }, NOW)).toEqual({
      analyse: true,
      trigger: 'status-changed',
    });
  });
});

describe('analysisRetryDelayMs', () => {
  it.each([
    [1, 0, MINUTE],
    [2, 0, 2 * MINUTE],
    [3, 0, 4 * MINUTE],
    [9, 0, 256 * MINUTE],
    [10, 0, 6 * 60 * MINUTE],
    [50, 0, 6 * 60 * MINUTE],
    [0, 0, MINUTE],
    [1, 5 * MINUTE, 5 * MINUTE],
    [2, 5 * MINUTE, 10 * MINUTE],
  ])('%i failures in a row, spacing %i ms → %i ms', (failures, spacing, expected) => {
    expect(analysisRetryDelayMs(failures, spacing)).toBe(expected);
  });
});
