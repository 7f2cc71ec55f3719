/**
 * Response rules in the endpoint form: the editor's rows ↔ the API's successWhen and rules, and
 * conditions, rules and statuses said in words ("backlog is greater than 100"). Errors are keyed by
 * the API's field paths (`rules[0].when.all[1].value`), so the browser's checks and the API's
 * VALIDATION_ERROR issues land on the same input.
 */
import type { Schemas } from '../api/client';
import { durationToMs, durationWords, msToDuration, type Duration } from './endpoint-form-units';

export type Condition = Schemas['ResponseCondition'];
export type Rule = Schemas['ResponseRule'];
export type SuccessWhen = Schemas['SuccessWhen'];
export type ConditionOp = Condition['op'];
type StatusList = NonNullable<SuccessWhen['status']>;

export const CONDITION_OPS: readonly { op: ConditionOp; words: string; takesValue: boolean }[] = [
  { op: 'eq', words: 'is', takesValue: true },
  { op: 'ne', words: 'is not', takesValue: true },
  { op: 'gt', words: 'is greater than', takesValue: true },
  { op: 'gte', words: 'is at least', takesValue: true },
  { op: 'lt', words: 'is less than', takesValue: true },
  { op: 'lte', words: 'is at most', takesValue: true },
  { op: 'exists', words: 'exists', takesValue: false },
  { op: 'missing', words: 'is missing', takesValue: false },
  { op: 'contains', words: 'contains', takesValue: true },
  { op: 'matches', words: 'matches the pattern', takesValue: true },
];

const opOf = (op: ConditionOp) => CONDITION_OPS.find((entry) => entry.op === op) ?? CONDITION_OPS[0]!;

/** "$.backlog" → "backlog", "$" → "the body", "$status" → "the HTTP status". */
export function pathWords(path: string): string {
  const trimmed = path.trim();
  if (trimmed === '$') return 'the body';
  if (trimmed === '$status') return 'the HTTP status';
  if (trimmed === '$durationMs') return 'the duration in ms';
  if (trimmed.startsWith('$.')) return trimmed.slice(2);
  if (trimmed.startsWith('$[')) return `the body${trimmed.slice(1)}`;
  return trimmed;
}

function valueWords(op: ConditionOp, value: unknown): string {
  if (op === 'matches' && typeof value === 'string') return `/${value}/`;
  return JSON.stringify(value) ?? '';
}

/** "backlog is greater than 100", "ok is true", "error exists". */
export function describeCondition(condition: Condition): string {
  const entry = opOf(condition.op);
  const subject = pathWords(condition.path);
  return entry.takesValue
    ? `${subject} ${entry.words} ${valueWords(condition.op, condition.value)}`
    : `${subject} ${entry.words}`;
}

export function describeStatuses(statuses: readonly (number | string)[]): string {
  return statuses.map(String).join(', ');
}

/** "every 1 minute", "pause for 10 minutes", "run Export now", "ask the planner for an analysis". */
export function describeAction(then: Rule['then'], endpointName: (id: string) => string = (id) => id): string {
  const parts: string[] = [];
  if (then.intervalMs !== undefined) parts.push(`run every ${durationWords(then.intervalMs)} while it matches`);
  if (then.pauseMs !== undefined) parts.push(`pause for ${durationWords(then.pauseMs)}`);
  if (then.runEndpoint !== undefined) parts.push(`run ${endpointName(then.runEndpoint)} once now`);
  if (then.analyse) parts.push('start a planner analysis now');
  return parts.join(', and ');
}

/** "When the status is 2xx and backlog is greater than 100: run every 1 minute while it matches." */
export function describeRule(rule: Rule, endpointName?: (id: string) => string): string {
  const parts: string[] = [];
  if (rule.when.status) parts.push(`the status is ${describeStatuses(rule.when.status)}`);
  if (rule.when.runStatus) parts.push(`the run ${rule.when.runStatus === 'success' ? 'succeeded' : 'failed'}`);
  parts.push(...(rule.when.all ?? []).map(describeCondition));
  if (rule.when.any && rule.when.any.length > 0) {
    parts.push(
      rule.when.any.length === 1
        ? describeCondition(rule.when.any[0]!)
        : `any of (${rule.when.any.map(describeCondition).join('; ')})`,
    );
  }
  const when = parts.length > 0 ? `When ${parts.join(' and ')}` : 'After every run';
  return `${when}: ${describeAction(rule.then, endpointName)}.`;
}

export function describeSuccessWhen(successWhen: SuccessWhen): string {
  const status = successWhen.status
    ? `its status is ${describeStatuses(successWhen.status)}`
    : 'its status is 2xx or 3xx';
  const all = (successWhen.all ?? []).map(describeCondition);
  return `A run succeeds when ${[status, ...all].join(' and ')}.`;
}

// --- The editor's rows -----------------------------------------------------------------------

export interface ConditionRow {
  key: string;
  path: string;
  op: ConditionOp;
  /** As typed: JSON, or plain text taken as a string. */
  value: string;
}

export type Timing = 'none' | 'interval' | 'pause';

export interface RuleRow {
  key: string;
  name: string;
  /** Statuses as typed ("2xx, 304"); empty: any status. */
  status: string;
  runStatus: '' | 'success' | 'failed';
  all: ConditionRow[];
  any: ConditionRow[];
  timing: Timing;
  duration: Duration;
  /** An endpoint id of the same job; empty: none. */
  runEndpoint: string;
  analyse: boolean;
}

export interface RulesFormState {
  /** Statuses that may succeed, as typed; empty: the default (2xx and 3xx). */
  successStatus: string;
  successAll: ConditionRow[];
  rules: RuleRow[];
}

let rowCounter = 0;
const nextKey = (what: string) => {
  rowCounter += 1;
  return `${what}-${rowCounter}`;
};

export function newConditionRow(condition?: Condition): ConditionRow {
  return {
    key: nextKey('condition'),
    path: condition?.path ?? '',
    op: condition?.op ?? 'eq',
    value: condition && condition.value !== undefined ? valueToText(condition.op, condition.value) : '',
  };
}

export function newRuleRow(rule?: Rule): RuleRow {
  const then = rule?.then;
  const timing: Timing = then?.intervalMs !== undefined ? 'interval' : then?.pauseMs !== undefined ? 'pause' : 'none';
  return {
    key: nextKey('rule'),
    name: rule?.name ?? '',
    status: rule?.when.status ? describeStatuses(rule.when.status) : '',
    runStatus: rule?.when.runStatus ?? '',
    all: (rule?.when.all ?? []).map(newConditionRow),
    any: (rule?.when.any ?? []).map(newConditionRow),
    timing: rule ? timing : 'interval',
    duration: msToDuration(then?.intervalMs ?? then?.pauseMs ?? null),
    runEndpoint: then?.runEndpoint ?? '',
    analyse: then?.analyse === true,
  };
}

export function rulesFormState(successWhen: SuccessWhen | null, rules: Rule[] | null): RulesFormState {
  return {
    successStatus: successWhen?.status ? describeStatuses(successWhen.status) : '',
    successAll: (successWhen?.all ?? []).map(newConditionRow),
    rules: (rules ?? []).map(newRuleRow),
  };
}

/**
 * A value as the input shows it: a string as itself unless it would read back as something else
 * ("100" the string shows as "\"100\""), anything else as JSON.
 */
export function valueToText(op: ConditionOp, value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  if (op === 'matches') return value;
  try {
    JSON.parse(value);
    return JSON.stringify(value);
  } catch {
    return value;
  }
}

/** The typed value: a pattern as written; otherwise JSON when it parses, else the text as a string. */
export function textToValue(op: ConditionOp, text: string): unknown {
  if (op === 'matches') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const STATUS = /^([1-5]xx|[1-5]\d\d)$/i;

function parseStatuses(text: string, field: string, issues: Record<string, string>): StatusList | undefined {
  const parts = text
    .split(/[\s,]+/)
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length === 0) return undefined;
  const bad = parts.find((part) => !STATUS.test(part));
  if (bad) {
    issues[field] = `"${bad}" is not a status: list codes such as 200 or classes such as 2xx, separated by commas`;
    return undefined;
  }
  return parts.map((part) => (/xx$/i.test(part) ? (part.toLowerCase() as StatusList[number]) : Number(part)));
}

function buildCondition(row: ConditionRow, field: string, issues: Record<string, string>): Condition {
  const path = row.path.trim();
  if (path === '') issues[`${field}.path`] = 'enter what to read, e.g. $.backlog, $ (the body) or $status';
  else if (!path.startsWith('$')) issues[`${field}.path`] = 'a path starts with $ (e.g. $.backlog)';
  const takesValue = opOf(row.op).takesValue;
  if (!takesValue) return { path, op: row.op };
  if (row.value.trim() === '') {
    issues[`${field}.value`] = `enter a value to compare with (${opOf(row.op).words})`;
    return { path, op: row.op, value: '' };
  }
  return { path, op: row.op, value: textToValue(row.op, row.value.trim()) };
}

function buildConditions(rows: ConditionRow[], field: string, issues: Record<string, string>): Condition[] {
  return rows.map((row, index) => buildCondition(row, `${field}[${index}]`, issues));
}

export type RulesBuild = {
  successWhen: SuccessWhen | null;
  rules: Rule[] | null;
  /** Keyed by the API's field path; empty when the rows are complete. */
  issues: Record<string, string>;
};

/** The rows as the API takes them; nothing entered: both null (the endpoint has no rules). */
export function buildRules(state: RulesFormState): RulesBuild {
  const issues: Record<string, string> = {};
  const status = parseStatuses(state.successStatus, 'successWhen.status', issues);
  const all = buildConditions(state.successAll, 'successWhen.all', issues);
  const successWhen: SuccessWhen | null =
    status || all.length > 0 ? { ...(status ? { status } : {}), ...(all.length > 0 ? { all } : {}) } : null;
  const rules = state.rules.map((row, index): Rule => {
    const field = `rules[${index}]`;
    const name = row.name.trim();
    if (name === '') issues[`${field}.name`] = 'enter a name, e.g. backlog high';
    const ruleStatus = parseStatuses(row.status, `${field}.when.status`, issues);
    const ruleAll = buildConditions(row.all, `${field}.when.all`, issues);
    const ruleAny = buildConditions(row.any, `${field}.when.any`, issues);
    const then: Rule['then'] = {};
    if (row.timing !== 'none') {
      const result = durationToMs(row.duration);
      const key = row.timing === 'interval' ? 'intervalMs' : 'pauseMs';
      if (!result.ok) issues[`${field}.then.${key}`] = result.message;
      else if (result.ms === null) issues[`${field}.then.${key}`] = `enter how long`;
      else then[key] = result.ms;
    }
    if (row.runEndpoint.trim() !== '') then.runEndpoint = row.runEndpoint.trim();
    if (row.analyse) then.analyse = true;
    if (row.timing === 'none' && row.runEndpoint.trim() === '' && !row.analyse) {
      issues[`${field}.then`] = 'choose what the rule does: an interval, a pause, another endpoint or an analysis';
    }
    return {
      name,
      when: {
        ...(ruleStatus ? { status: ruleStatus } : {}),
        ...(row.runStatus ? { runStatus: row.runStatus } : {}),
        ...(ruleAll.length > 0 ? { all: ruleAll } : {}),
        ...(ruleAny.length > 0 ? { any: ruleAny } : {}),
      },
      then,
    };
  });
  return { successWhen, rules: rules.length > 0 ? rules : null, issues };
}

const KNOWN_FIELD =
  /^(successWhen\.status|successWhen\.all\[\d+\]\.(path|op|value)|rules\[\d+\]\.(name|when\.status|when\.(all|any)\[\d+\]\.(path|op|value)|then(\.(intervalMs|pauseMs|runEndpoint))?))$/;

/**
 * An API issue's field → the editor's key, or null when no input shows it: `.status[2]` is the
 * status list, a condition or rule named whole goes to its first input, `then.analyse` to the action.
 */
export function ruleFieldOf(field: string): string | null {
  if (!field.startsWith('successWhen') && !field.startsWith('rules')) return null;
  const normal = field
    .replace(/\.status\[\d+\]$/, '.status')
    .replace(/\.then\.analyse$/, '.then')
    .replace(/^(rules\[\d+\])$/, '$1.name')
    .replace(/^(rules\[\d+\])\.when$/, '$1.name')
    .replace(/(\.(all|any)\[\d+\])$/, '$1.path');
  return KNOWN_FIELD.test(normal) ? normal : null;
}
