/**
 * Pure wording for analysis sessions: what a trigger or tool means, what the governor did with a
 * proposal (from the result sentence the planner records: "applied: …", "refused: …",
 * "nothing to do: …", "shadow mode, not applied: would apply …"), and readable tool inputs.
 */
import { formatDateTime, formatDuration } from '../lib/time';

export type Verdict = 'applied' | 'clamped' | 'refused' | 'noop' | 'shadow' | 'unknown';

export interface ActionVerdict {
  verdict: Verdict;
  /** A short label for a badge. */
  label: string;
  /** The governor's sentence without its prefix. */
  detail: string;
}

const PREFIXES: [string, Verdict][] = [
  ['shadow mode, not applied:', 'shadow'],
  ['applied:', 'applied'],
  ['refused:', 'refused'],
  ['nothing to do:', 'noop'],
];

const LABELS: Record<Verdict, string> = {
  applied: 'Applied',
  clamped: 'Applied, clamped',
  refused: 'Refused by the governor',
  noop: 'Nothing to do',
  shadow: 'Shadow: not applied',
  unknown: 'Not applied',
};

/** The governor moved the value to fit the endpoint's or account's limits. */
const CLAMP_MARKERS = ['clamped to', 'raised to', 'floor moves it'];

export function describeActionResult(result: string, applied: boolean): ActionVerdict {
  const prefix = PREFIXES.find(([text]) => result.startsWith(text));
  let verdict: Verdict = prefix ? prefix[1] : applied ? 'applied' : 'unknown';
  const detail = prefix ? result.slice(prefix[0].length).trim() : result;
  if (verdict === 'applied' && CLAMP_MARKERS.some((marker) => detail.includes(marker))) verdict = 'clamped';
  return { verdict, label: LABELS[verdict], detail };
}

export const VERDICT_BADGE: Record<Verdict, string> = {
  applied: 'badge-success',
  clamped: 'badge-paused',
  refused: 'badge-failed',
  noop: '',
  shadow: 'badge-shadow',
  unknown: '',
};

const TRIGGERS: Record<string, string> = {
  'first-analysis': 'First analysis of this endpoint',
  scheduled: 'Scheduled: the time the planner chose to look again',
  'first-run': "The endpoint's first run",
  'status-changed': 'The run status changed',
  'failures-rose': 'Consecutive failures rose',
};

export function describeTrigger(trigger: string | null): string {
  if (!trigger) return '—';
  return TRIGGERS[trigger] ?? trigger;
}

const TOOLS: Record<string, { kind: 'read' | 'write'; text: string }> = {
  propose_interval: { kind: 'write', text: 'Proposed an interval hint' },
  propose_next_time: { kind: 'write', text: 'Proposed a one-shot run' },
  pause_until: { kind: 'write', text: 'Proposed a pause (or a resume)' },
  clear_hints: { kind: 'write', text: 'Proposed clearing the planner hints' },
  get_latest_response: { kind: 'read', text: 'Read the latest response' },
  get_response_history: { kind: 'read', text: 'Read recent responses' },
  get_sibling_latest_responses: { kind: 'read', text: "Read the job's other endpoints" },
};

export function describeTool(tool: string): { kind: 'read' | 'write'; text: string } {
  return TOOLS[tool] ?? { kind: 'read', text: 'Planner tool' };
}

const PARAM_LABELS: Record<string, string> = {
  intervalMs: 'Requested interval',
  nextRunAt: 'Requested run at',
  pausedUntil: 'Requested pause until',
  ttlMinutes: 'Requested hint lifetime',
  limit: 'Runs read',
  reason: 'Reason',
};

const PARAM_ORDER = Object.keys(PARAM_LABELS);
const rank = (key: string) => (PARAM_ORDER.includes(key) ? PARAM_ORDER.indexOf(key) : PARAM_ORDER.length);

/**
 * A tool input as label/value rows ("Interval: 5 min (300000 ms)"), in a fixed order (the stored
 * JSON does not keep the model's key order); unknown keys last, as JSON.
 */
export function describeParams(params: Record<string, unknown>): { key: string; label: string; value: string }[] {
  return Object.entries(params)
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([key, value]) => ({ key, label: PARAM_LABELS[key] ?? key, value: formatParam(key, value) }));
}

const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;

/** The governor's sentences carry ISO times; people read them in their local time. */
export function humaniseTimes(text: string): string {
  return text.replace(ISO_TIME, (iso) => (Number.isNaN(Date.parse(iso)) ? iso : formatDateTime(iso)));
}

function formatParam(key: string, value: unknown): string {
  if (key === 'intervalMs' && typeof value === 'number') return `${formatDuration(value)} (${value} ms)`;
  if (key === 'ttlMinutes' && typeof value === 'number') return formatDuration(value * 60_000);
  if ((key === 'nextRunAt' || key === 'pausedUntil') && value === null) return 'none (resume)';
  if ((key === 'nextRunAt' || key === 'pausedUntil') && typeof value === 'string') {
    return Number.isNaN(Date.parse(value)) ? value : `${formatDateTime(value)} (${value})`;
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Pairs each tool call with the action it produced: the n-th call of a write tool is the n-th
 * action of that tool (the planner records one action per write call, in order). Read tools: null.
 */
export function matchActions(toolsCalled: string[], actions: { tool: string }[]): (number | null)[] {
  const used = new Set<number>();
  return toolsCalled.map((tool) => {
    if (describeTool(tool).kind === 'read') return null;
    const index = actions.findIndex((action, i) => action.tool === tool && !used.has(i));
    if (index === -1) return null;
    used.add(index);
    return index;
  });
}
