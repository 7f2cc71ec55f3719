/**
 * `pnpm eval:planner` inside `pnpm test`: the planner evaluation (bench/planner-eval) with the
 * scripted model on the fake Messages API server, one virtual day per scenario. It asserts the
 * plumbing (the modes are offered the tools they should be, baseline calls no model, the model
 * modes call it through the Messages API and count its tokens) and the targets of the model writing
 * rules: every change reached within one run, at least 10× fewer model calls per endpoint-day than
 * analysing on every trigger, at an equal or better cadence match, scenario by scenario.
 */
import { perDay, runSuite, worstReaction, type SuiteResult } from '../bench/planner-eval/suite.js';
import { SCENARIOS } from '../bench/planner-eval/scenarios.js';
import type { Figures, Mode } from '../bench/planner-eval/simulate.js';

let result: SuiteResult;
beforeAll(async () => {
  result = await runSuite({ days: 1 });
}, 120_000);

const row = (scenario: string, mode: Mode): Figures =>
  result.figures.find((figures) => figures.scenario === scenario && figures.mode === mode)!;

const SEVEN = [
  'propose_interval',
  'propose_next_time',
  'pause_until',
  'clear_hints',
  'get_latest_response',
  'get_response_history',
  'get_sibling_latest_responses',
  'submit_analysis',
];

it('runs every scenario in every mode, offering each mode its tools', () => {
  expect(result.scripted).toBe(true);
  expect(result.figures).toHaveLength(SCENARIOS.length * 3);
  expect(result.toolsOffered.baseline).toBeUndefined();
  expect(result.toolsOffered.analyse).toEqual([SEVEN]);
  expect(result.toolsOffered.rules).toEqual([[...SEVEN.slice(0, 4), 'propose_rules', ...SEVEN.slice(4)]]);
  for (const figures of result.figures) {
    expect(figures.runs).toBeGreaterThan(20);
    if (figures.mode === 'baseline') {
      expect(figures).toMatchObject({ modelCalls: 0, tokens: 0 });
    } else {
      expect(figures.modelCalls).toBeGreaterThanOrEqual(figures.analyses);
      expect(figures.analyses).toBeGreaterThan(0);
      expect(figures.tokens).toBeGreaterThan(figures.modelCalls * 100);
    }
  }
});

describe.each(SCENARIOS.map((scenario) => scenario.name))('%s, with the model writing rules', (scenario) => {
  it('reaches the cadence the description asks for within one run of each change', () => {
    const rules = row(scenario, 'rules');
    expect(rules.reactionRuns.length).toBeGreaterThan(0);
    expect(worstReaction(rules).runs).toBe(1);
  });

  it('calls the model at least 10× less per endpoint-day than analysing on every trigger', () => {
    const analyse = perDay(row(scenario, 'analyse'), row(scenario, 'analyse').modelCalls);
    const rules = perDay(row(scenario, 'rules'), row(scenario, 'rules').modelCalls);
    expect(rules).toBeGreaterThan(0);
    expect(analyse / rules).toBeGreaterThanOrEqual(10);
  });

  it('matches the described cadence at least as well, and better than the baseline alone', () => {
    expect(row(scenario, 'rules').cadenceMatch).toBeGreaterThanOrEqual(row(scenario, 'analyse').cadenceMatch);
    expect(row(scenario, 'rules').cadenceMatch).toBeGreaterThan(row(scenario, 'baseline').cadenceMatch);
  });
});
