/**
 * One condition of a response rule: a path (path.ts), an operator and, for most operators, a value.
 * The operators, over the value the path names in the run's response:
 *   eq, ne            equal / not equal as JSON values (1 and 1.0 are equal; "1" and 1 are not); dequal/lite,
 *                     as fast as a hand-written comparison (0.09–0.13 against 0.09–0.20 µs for a small
 *                     object, bench/rule-evaluation.ts)
 *   gt, gte, lt, lte  numbers by value, strings by code unit (ISO 8601 times compare as times);
 *                     a number against a string is false
 *   exists, missing   the path names a value (JSON null counts) / it does not; no `value`
 *   contains          a string holds the value as a substring, or an array holds an element equal to it
 *   matches           a string matches the RE2 regular expression `value` (regex.ts: bounded)
 * A missing value makes every operator but `missing` false (`ne` too): a condition never holds
 * because a field is absent unless it says so.
 */
import { dequal } from 'dequal/lite';
import { toStorableText } from '../storable.js';
import { MISSING, resolvePath, type CompiledPath, type ResponseSubject } from './path.js';
import { testBoundedRegex, type BoundedRegex } from './regex.js';

export const CONDITION_OPS = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'exists',
  'missing',
  'contains',
  'matches',
] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

/** A condition ready to evaluate: its path parsed, its pattern compiled. */
export type CompiledCondition =
  | { path: CompiledPath; op: 'exists' | 'missing' }
  | { path: CompiledPath; op: 'eq' | 'ne' | 'contains'; value: unknown }
  | { path: CompiledPath; op: 'gt' | 'gte' | 'lt' | 'lte'; value: number | string }
  /** regex null: a stored pattern that no longer compiles (a limit lowered since); it never matches. */
  | { path: CompiledPath; op: 'matches'; value: string; regex: BoundedRegex | null };

export interface ConditionResult {
  holds: boolean;
  /** The value the path named (MISSING when none). */
  seen: unknown;
}

export function evaluateCondition(condition: CompiledCondition, subject: ResponseSubject): ConditionResult {
  const seen = resolvePath(condition.path, subject);
  return { holds: holds(condition, seen), seen };
}

function holds(condition: CompiledCondition, seen: unknown): boolean {
  if (condition.op === 'missing') return seen === MISSING;
  if (seen === MISSING) return false;
  switch (condition.op) {
    case 'exists':
      return true;
    case 'eq':
      return dequal(seen, condition.value);
    case 'ne':
      return !dequal(seen, condition.value);
    case 'gt':
      return compare(seen, condition.value) > 0;
    case 'gte':
      return compare(seen, condition.value) >= 0;
    case 'lt':
      return compare(seen, condition.value) < 0;
    case 'lte':
      return compare(seen, condition.value) <= 0;
    case 'contains':
      if (typeof seen === 'string') return typeof condition.value === 'string' && seen.includes(condition.value);
      return Array.isArray(seen) && seen.some((element) => dequal(element, condition.value));
    case 'matches':
      return typeof seen === 'string' && condition.regex !== null && testBoundedRegex(condition.regex, seen);
  }
}

/** Sign of seen − value for two numbers or two strings; NaN (every comparison false) otherwise. */
function compare(seen: unknown, value: number | string): number {
  if (typeof seen === 'number' && typeof value === 'number') return seen - value;
  if (typeof seen === 'string' && typeof value === 'string') return seen < value ? -1 : seen > value ? 1 : 0;
  return Number.NaN;
}

/** The condition in words as written: `$.backlog gt 100`, `$.ok exists`. */
export function describeCondition(condition: { path: string; op: ConditionOp; value?: unknown }): string {
  const { path, op } = condition;
  return op === 'exists' || op === 'missing' ? `${path} ${op}` : `${path} ${op} ${JSON.stringify(condition.value)}`;
}

/**
 * A seen value for a run's errorMessage: JSON, cut at 100 characters; "nothing" when missing. Made
 * storable (the cut may split a surrogate pair; the message is recorded).
 */
export function describeSeen(seen: unknown): string {
  if (seen === MISSING) return 'nothing (the path names no value)';
  const text = JSON.stringify(seen) ?? String(seen);
  return toStorableText(text.length > 100 ? `${text.slice(0, 100)}…` : text);
}
