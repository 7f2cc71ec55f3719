/**
 * Response rules over one run, pure: `judgeRun` decides the run's status from successWhen, then
 * `applyRules` says which rules matched and what they do. The executor runs both on every call of an
 * endpoint that has them (services/executor/src/response-rules.ts) and the recorder writes the result
 * with the run (packages/db/src/executions.ts); the backtest runs the same two over recorded runs
 * (backtest.ts), so a replay says exactly what the executor would have done.
 *
 * successWhen: a response whose status is listed (default 2xx and 3xx) and that passes every
 * condition succeeds; one with another status fails as http_status; one that fails a condition fails
 * as assertion_failed, the message naming the first such condition and the value seen. Runs without
 * a response (timeout, connection error, blocked) keep their failure.
 *
 * Rules: in order, each matches when every part of its `when` holds (status listed, runStatus equal,
 * all conditions, at least one of `any`). Every matching rule acts; of the interval and pause actions
 * the first matching rule's wins. An interval is clamped to the endpoint's minIntervalMs/maxIntervalMs
 * and expires RULE_INTERVAL_TTL_INTERVALS intervals after the run (each matching run renews it, the
 * first run that does not match ends it; the expiry only matters when no run comes, e.g. paused).
 */
import { clampIntervalMs } from '../schemas/scheduling.js';
import type { ResponseCondition, ResponseRule, RuleAction, SuccessWhen } from '../schemas/response-rules.js';
import {
  describeCondition,
  describeSeen,
  evaluateCondition,
  type CompiledCondition,
  type ConditionOp,
} from './conditions.js';
import { parsePath, type ResponseSubject } from './path.js';
import { compileBoundedRegex } from './regex.js';

/** A rule's interval hint lasts this many of its intervals after the run that set or renewed it. */
export const RULE_INTERVAL_TTL_INTERVALS = 2;

/**
 * How long a runEndpoint request waits to run (a one-shot hint on the other endpoint): its own
 * minIntervalMs or pause may hold it back; past an hour "now" no longer holds and it lapses.
 */
export const RULE_RUN_TTL_MS = 3_600_000;

type StatusTest = (statusCode: number) => boolean;

interface Judged {
  condition: CompiledCondition;
  text: string;
  field: string;
}

interface CompiledRule {
  name: string;
  status: StatusTest | null;
  runStatus: 'success' | 'failed' | null;
  all: CompiledCondition[];
  any: CompiledCondition[];
  then: RuleAction;
}

export interface CompiledResponseRules {
  successWhen: { status: StatusTest | null; statusText: string | null; all: Judged[] } | null;
  rules: CompiledRule[] | null;
  minIntervalMs: number | null;
  maxIntervalMs: number | null;
}

export interface ResponseRulesConfig {
  successWhen: SuccessWhen | null;
  rules: ResponseRule[] | null;
  minIntervalMs: number | null;
  maxIntervalMs: number | null;
}

/** 2xx and 3xx succeed, as without successWhen. */
const DEFAULT_SUCCESS: StatusTest = (code) => code >= 200 && code < 400;

function compileStatus(list: (number | string)[] | undefined): StatusTest | null {
  if (!list) return null;
  const codes = new Set(list.filter((entry): entry is number => typeof entry === 'number'));
  const classes = new Set(list.filter((entry) => typeof entry === 'string').map((entry) => Number(entry[0])));
  return (code) => codes.has(code) || classes.has(Math.floor(code / 100));
}

/**
 * A stored condition made ready to run. Stored conditions were checked when saved; one that no
 * longer compiles (a limit lowered since) never holds rather than stopping the endpoint.
 */
function compileCondition(condition: ResponseCondition): CompiledCondition {
  const parsed = parsePath(condition.path);
  const path = parsed.ok ? parsed.path : { kind: 'invalid' as const, text: condition.path };
  const op: ConditionOp = condition.op;
  if (op === 'exists' || op === 'missing') return { path, op };
  if (op === 'matches') {
    const pattern = typeof condition.value === 'string' ? condition.value : '';
    const compiled = compileBoundedRegex(pattern);
    return { path, op, value: pattern, regex: compiled.ok ? compiled.regex : null };
  }
  if (op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte') {
    const value = condition.value;
    return { path, op, value: typeof value === 'number' || typeof value === 'string' ? value : Number.NaN };
  }
  return { path, op, value: condition.value };
}

export function compileResponseRules(config: ResponseRulesConfig): CompiledResponseRules {
  const { successWhen, rules } = config;
  return {
    successWhen: successWhen && {
      status: compileStatus(successWhen.status),
      statusText: successWhen.status ? successWhen.status.join(', ') : null,
      all: (successWhen.all ?? []).map((condition, index) => ({
        condition: compileCondition(condition),
        text: describeCondition(condition),
        field: `successWhen.all[${index}]`,
      })),
    },
    rules:
      rules &&
      rules.map((rule) => ({
        name: rule.name,
        status: compileStatus(rule.when.status),
        runStatus: rule.when.runStatus ?? null,
        all: (rule.when.all ?? []).map(compileCondition),
        any: (rule.when.any ?? []).map(compileCondition),
        then: rule.then,
      })),
    minIntervalMs: config.minIntervalMs,
    maxIntervalMs: config.maxIntervalMs,
  };
}

/** The parts of a run judgeRun reads and may change. */
export interface JudgedRun extends ResponseSubject {
  status: 'success' | 'failed';
  errorKind: string | null;
  errorMessage: string | null;
  responseTruncated: boolean;
}

export type Verdict = Pick<JudgedRun, 'status' | 'errorKind' | 'errorMessage'>;

/** The run's status, error kind and message as successWhen decides them (unchanged without it). */
export function judgeRun(compiled: CompiledResponseRules, run: JudgedRun): Verdict {
  const verdict = { status: run.status, errorKind: run.errorKind, errorMessage: run.errorMessage };
  const rule = compiled.successWhen;
  // Only a response judged by its status can be judged by its content: a timeout, a connection error,
  // a blocked target or an invalid request stays what it is.
  if (!rule || run.statusCode === null || (run.errorKind !== null && run.errorKind !== 'http_status')) return verdict;
  const code = run.statusCode;
  if (!(rule.status ?? DEFAULT_SUCCESS)(code)) {
    if (rule.status === null) return verdict;
    return {
      status: 'failed',
      errorKind: 'http_status',
      errorMessage: `HTTP ${code} is not one of successWhen.status (${rule.statusText})`,
    };
  }
  for (const { condition, text, field } of rule.all) {
    const result = evaluateCondition(condition, run);
    if (result.holds) continue;
    const truncated = run.responseTruncated ? ' (the body was cut at maxResponseSizeKb)' : '';
    return {
      status: 'failed',
      errorKind: 'assertion_failed',
      errorMessage: `${field} failed: ${text}; saw ${describeSeen(result.seen)}${truncated}`,
    };
  }
  return { status: 'success', errorKind: null, errorMessage: null };
}

/** What an endpoint's rules do after one run (times as epoch ms, so the value travels as JSON). */
export interface RuleOutcome {
  /** The names of the rules that matched, in order. */
  matched: string[];
  /** The first matching interval rule, its interval clamped, and when its hint expires. */
  interval: { rule: string; intervalMs: number; expiresAtMs: number } | null;
  /** The first matching pause rule and the pause's end. */
  pause: { rule: string; untilMs: number } | null;
  /** Endpoints to run once now, each once, in rule order, with the rule that asked. */
  runEndpoints: { endpointId: string; rule: string }[];
  /** A matching rule asked for a planner analysis. */
  analyse: boolean;
}

function ruleMatches(rule: CompiledRule, run: ResponseSubject & { status: 'success' | 'failed' }): boolean {
  if (rule.status && (run.statusCode === null || !rule.status(run.statusCode))) return false;
  if (rule.runStatus !== null && rule.runStatus !== run.status) return false;
  for (const condition of rule.all) if (!evaluateCondition(condition, run).holds) return false;
  if (rule.any.length > 0 && !rule.any.some((condition) => evaluateCondition(condition, run).holds)) return false;
  return true;
}

/**
 * The endpoint's rules over a judged run that ended at `endedAt`; null when it has none (its rule
 * state is then left alone). A run matching no rule still returns an outcome: it ends a rule's
 * interval hint.
 */
export function applyRules(
  compiled: CompiledResponseRules,
  run: ResponseSubject & { status: 'success' | 'failed' },
  endedAt: Date,
): RuleOutcome | null {
  if (!compiled.rules) return null;
  const outcome: RuleOutcome = { matched: [], interval: null, pause: null, runEndpoints: [], analyse: false };
  const at = endedAt.getTime();
  for (const rule of compiled.rules) {
    if (!ruleMatches(rule, run)) continue;
    outcome.matched.push(rule.name);
    const { intervalMs, pauseMs, runEndpoint, analyse } = rule.then;
    if (intervalMs !== undefined && outcome.interval === null) {
      const clamped = clampIntervalMs(intervalMs, compiled.minIntervalMs, compiled.maxIntervalMs);
      outcome.interval = {
        rule: rule.name,
        intervalMs: clamped,
        expiresAtMs: at + RULE_INTERVAL_TTL_INTERVALS * clamped,
      };
    }
    if (pauseMs !== undefined && outcome.pause === null) outcome.pause = { rule: rule.name, untilMs: at + pauseMs };
    if (runEndpoint !== undefined && !outcome.runEndpoints.some((target) => target.endpointId === runEndpoint)) {
      outcome.runEndpoints.push({ endpointId: runEndpoint, rule: rule.name });
    }
    if (analyse) outcome.analyse = true;
  }
  return outcome;
}
