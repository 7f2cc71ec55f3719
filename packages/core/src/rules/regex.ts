/**
 * The `matches` operator's regular expressions: RE2 syntax, run by re2js (a pure JavaScript port of
 * RE2), whose matching time is linear in the text: it never backtracks, so `(a+)+$` against a
 * million "a"s and a "b" ends in tens of milliseconds, where JavaScript's RegExp would not end.
 * Linear is not free: the cost is the compiled program's size times the characters read, ≈ 10–100 ns
 * per instruction-character here through re2js's NFA (a 963-instruction program over 64 KiB of
 * random "a"/"b" took 0.9–2.3 s). re2js's DFA is faster once warm but its first tests of an
 * adversarial pattern took 100–320 ms for 2,400–6,000 characters (its state cache), so tests go
 * through the NFA (`matcher().find()`), whose cost is predictable, and both factors are bounded:
 *  - a pattern has at most 200 characters and compiles to at most 200 instructions (refused when
 *    saved, naming the field; typical patterns such as `^(ok|done)$` are 10–30);
 *  - one test reads at most MATCH_BUDGET / program size characters of its text: a 10-instruction
 *    pattern the first 20,000 characters, the largest program the first 1,000; the rest is not
 *    looked at, and `$` matches at the end of the part read (`contains` has no such bound, for a
 *    plain substring of a long text);
 *  - an endpoint has at most 4 `matches` conditions (successWhen and rules together), so the worst
 *    run spends about 4 × 20 ms in them (test: services/executor/test/response-rules.test.ts).
 * Backreferences and lookaround do not exist in RE2: such a pattern is refused when saved.
 */
import { RE2JS } from 're2js';

export const REGEX_LIMITS = {
  patternMaxLength: 200,
  programMaxInstructions: 200,
  /** Instructions × characters one test may spend (≈ 10–100 ns each through re2js's NFA here). */
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
