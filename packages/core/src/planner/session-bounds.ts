/**
 * What an analysis session may store. Model output is outside data of any size (a 5 MB answer, 5 MB
 * of tool arguments, an error whose message quotes a whole request): each stored part is cut to a
 * few KB and says so, so a session row and the sessions API stay small (a session lists in ≈ 1 KB;
 * one at every bound is ≈ 40 KB). Pure: db recordAnalysisSession applies it to every session.
 */
import { PLANNER_LIMITS } from './tools.js';

export const SESSION_LIMITS = {
  /** The reasoning: the report's (at most this by its schema) or the model's own text. */
  reasoningMaxChars: PLANNER_LIMITS.reasoningMaxLength,
  errorMaxChars: 2000,
  /** One proposal's params (as JSON) and its result sentence. */
  paramsMaxChars: 2000,
  resultMaxChars: 2000,
  toolNameMaxChars: 100,
  /** Tool names listed; the rest are counted in one last entry ("… 236 more tool calls"). */
  toolsCalledMax: 64,
} as const;

const numberFormat = new Intl.NumberFormat('en-US');

/** The first `maxChars` UTF-16 units, never half a surrogate pair. */
function head(text: string, maxChars: number): string {
  const cut = text.slice(0, maxChars);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** `text` when it fits, else its first `maxChars` characters and "… [cut: N characters in all]". */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${head(text, maxChars)}… [cut: ${numberFormat.format(text.length)} characters in all]`;
}

/** A tool name as listed: at most toolNameMaxChars, ending "… [cut]" when cut. */
export function cutToolName(name: string): string {
  const max = SESSION_LIMITS.toolNameMaxChars;
  const marker = '… [cut]';
  return name.length <= max ? name : `${head(name, max - marker.length)}${marker}`;
}

/** The tools called, each name bounded, at most toolsCalledMax names then a count of the rest. */
export function boundToolsCalled(names: readonly string[]): string[] {
  const max = SESSION_LIMITS.toolsCalledMax;
  const listed = names.slice(0, max).map(cutToolName);
  if (names.length > max) listed.push(`… ${names.length - max} more tool calls`);
  return listed;
}

/** A proposal's params: as sent when their JSON fits, else `{ cut: true, chars, preview }`. */
export function boundParams(params: Record<string, unknown>): Record<string, unknown> {
  const json = JSON.stringify(params);
  if (json.length <= SESSION_LIMITS.paramsMaxChars) return params;
  return { cut: true, chars: json.length, preview: head(json, SESSION_LIMITS.paramsMaxChars) };
}
