/**
 * Response rules in the executor (packages/core/src/rules): successWhen judges every call of an
 * endpoint that has it (each attempt of a retried run: an assertion failure is not retried, a status
 * successWhen lists is a success), and the rules run over the run before it is recorded, so the
 * recorder writes their effects with the run in its one statement (packages/db/src/executions.ts).
 * An endpoint without either field costs one null check: its target's `responseRules` is null.
 *
 * Compiled once per rules text and kept (parsing and compiling patterns is the costly part; the
 * text changes only when the endpoint's rules or min/max do). Bounded: past MAX_KEPT texts the oldest
 * is dropped.
 */
import {
  applyRules,
  compileResponseRules,
  judgeRun,
  type CompiledResponseRules,
  type ResponseRulesConfig,
} from '@kairos/core';
import type { RunOutcome } from '@kairos/db/system';
import type { HttpOutcome } from './http/index.js';

const MAX_KEPT = 10_000;

export class ResponseRulesCache {
  private readonly compiled = new Map<string, CompiledResponseRules>();

  /** The endpoint's compiled rules, from its target's `responseRules` text; null when it has none. */
  of(text: string | null): CompiledResponseRules | null {
    if (text === null) return null;
    let compiled = this.compiled.get(text);
    if (compiled === undefined) {
      compiled = compileResponseRules(JSON.parse(text) as ResponseRulesConfig);
      if (this.compiled.size >= MAX_KEPT) this.compiled.delete(this.compiled.keys().next().value!);
      this.compiled.set(text, compiled);
    }
    return compiled;
  }
}

/** One call's outcome as successWhen decides it. */
export function judgeCall(rules: CompiledResponseRules | null, outcome: HttpOutcome): HttpOutcome {
  if (rules?.successWhen == null) return outcome;
  const verdict = judgeRun(rules, outcome);
  return { ...outcome, ...verdict, errorKind: verdict.errorKind as HttpOutcome['errorKind'] };
}

/**
 * The run with its matched rules and, for a scheduled run (`acting`), what they do; a Test now run
 * records the names only (its rules do not act).
 */
export function withRuleOutcome(rules: CompiledResponseRules | null, run: RunOutcome, acting: boolean): RunOutcome {
  if (rules?.rules == null) return run;
  const outcome = applyRules(rules, run, run.completedAt)!;
  return acting
    ? { ...run, rulesMatched: outcome.matched, ruleOutcome: outcome }
    : { ...run, rulesMatched: outcome.matched };
}
