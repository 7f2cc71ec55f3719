export { createBacktest } from './backtest.js';
export type {
  Backtest,
  BacktestBaseline,
  BacktestResult,
  BacktestRun,
  BacktestSegment,
  RecordedRun,
} from './backtest.js';
export { CONDITION_OPS, describeCondition, describeSeen, evaluateCondition } from './conditions.js';
export type { CompiledCondition, ConditionOp, ConditionResult } from './conditions.js';
export { describeRuleState, formatIntervalMs } from './describe.js';
export {
  RULE_INTERVAL_TTL_INTERVALS,
  RULE_RUN_TTL_MS,
  applyRules,
  compileResponseRules,
  judgeRun,
} from './evaluate.js';
export type { CompiledResponseRules, JudgedRun, ResponseRulesConfig, RuleOutcome, Verdict } from './evaluate.js';
export { MISSING, PATH_MAX_LENGTH, parsePath, resolvePath } from './path.js';
export type { CompiledPath, ResponseSubject } from './path.js';
export { REGEX_LIMITS, compileBoundedRegex, testBoundedRegex } from './regex.js';
export type { BoundedRegex } from './regex.js';
