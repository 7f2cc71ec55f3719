/**
 * The `matches` operator's regular expressions: RE2 syntax, run by re2js (a pure JavaScript port of
 * RE2), whose matching time is linear in the text: it never backtracks, so `(a+)+b` against a
 * million "a"s ends at once, where JavaScript's RegExp would run for ages (test: evaluate.test.ts).
 * Linear is not free: the cost grows with the compiled program's size times the characters read
 * (Node 24 here: a 963-instruction program over 64 KiB of random "a"/"b" ending in its match took
 * 25–36 ms through re2js's NFA; its DFA is faster once warm but slower on a pattern's first texts,
 * as its state cache fills). Tests go through the NFA (`matcher().find()`), and both factors are bounded:
 *  - a pattern has at most 200 characters and compiles to at most 200 instructions (refused when
 *    saved, naming the field; typical patterns such as `^(ok|done)$` are 10–30);
 *  - one test reads at most MATCH_BUDGET / program size characters of its text: a 10-instruction
 *    pattern the first 20,000 characters, the largest program the first 1,000; the rest is not
 *    looked at, and `$` matches at the end of the part read (`contains` has no such bound, for a
 *    plain substring of a long text). At these bounds one adversarial test took 0.3–14 ms (a
 *    pattern's first test the slowest; bench figures in docs/benchmarks.md);
 *  - an endpoint has at most 4 `matches` conditions (successWhen and rules together), so the worst
 *    run spends tens of milliseconds in them (test: services/executor/test/response-rules.test.ts).
 * Backreferences and lookaround do not exist in RE2: such a pattern is refused when saved.
 */
import { RE2JS } from 're2js';

export const REGEX_LIMITS = {
  patternMaxLength: 200,
  programMaxInstructions: 200,
  /** Instructions × characters one test may read (see above: a test at the bound took 0.3–14 ms). */
  matchBudget: 200_000,
  matchesPerEndpoint: 4,
} as const;

export interface BoundedRegex {
  pattern: string;
  re: RE2JS;
  /** Characters of a text this pattern reads at most. */
  maxChars: number;
}

export type RegexCompile = { ok: true; regex: BoundedRegex } | { ok: false; message: string };

export function compileBoundedRegex(pattern: string): RegexCompile {
  if (pattern.length > REGEX_LIMITS.patternMaxLength) {
    return { ok: false, message: `a pattern has at most ${REGEX_LIMITS.patternMaxLength} characters` };
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      message: `not a valid RE2 regular expression (${reason}); lookaround and backreferences are not supported`,
    };
  }
  const size = re.programSize();
  if (size > REGEX_LIMITS.programMaxInstructions) {
    return {
      ok: false,
      message: `the pattern compiles to ${size} instructions, more than the ${REGEX_LIMITS.programMaxInstructions} allowed: simplify its repetitions`,
    };
  }
  return { ok: true, regex: { pattern, re, maxChars: Math.floor(REGEX_LIMITS.matchBudget / Math.max(1, size)) } };
}

/** Whether the pattern occurs in the text (unanchored, as RegExp.test), reading at most maxChars of it. */
export function testBoundedRegex(regex: BoundedRegex, text: string): boolean {
  return regex.re.matcher(text.length > regex.maxChars ? text.slice(0, regex.maxChars) : text).find();
}
