/**
 * The governor: what a planner proposal becomes when applied to the endpoint under analysis.
 * Pure functions of the endpoint's state (read under its row lock by the caller) and `now`, built on
 * the same checks as the API's scheduling routes (schemas/scheduling.ts), plus the planner's rules:
 *  - an interval is clamped to minIntervalMs/maxIntervalMs here, and the clamped value is stored
 *    (the scheduler clamps again; storing what applies keeps the session and the endpoint honest);
 *  - cron-scheduled endpoints refuse interval hints (adaptive intervals need baselineIntervalMs);
 *  - what a user set wins: a user's pause is never lifted, shortened or extended, and an active
 *    user-set hint is neither replaced nor cleared; they end on their own TTL;
 *  - planner hints live at most 24 hours, planner pauses at most 7 days;
 *  - a planner pause ends by lastRunAt + maxIntervalMs when the endpoint sets a max (a pause the
 *    model asks for longer is cut to it): maxIntervalMs is the user's promise that the endpoint runs
 *    at least that often, and a response body must not be able to talk the planner out of it. A
 *    user's pause is not cut (docs/guide/scheduling.md: pauses are not clamped).
 * Every verdict carries a sentence for the tool result: the model learns what applied and why.
 */
import { isHintActive } from '../schedule/hints.js';
import { checkIntervalHint, checkOneShotHint, checkPause, type HintTarget } from '../schemas/scheduling.js';
import { checkResponseRules, conditionsOf, type ResponseRule, type SuccessWhen } from '../schemas/response-rules.js';
import { REGEX_LIMITS } from '../rules/regex.js';
import { AI_RULE_LIMITS, PLANNER_LIMITS, type PlannerToolInput } from './tools.js';

/** rule: a response rule (packages/core/src/rules) set it; the planner treats its hints as its own (the latest decision wins) and never lifts its pause. */
type Origin = 'user' | 'planner' | 'rule';

/** The endpoint state the governor reads (a stored endpoint row satisfies it). */
export interface GovernorTarget extends HintTarget {
  baselineIntervalMs: number | null;
  pausedUntil: Date | null;
  pauseOrigin: Origin | null;
  hintIntervalMs: number | null;
  hintIntervalExpiresAt: Date | null;
  hintIntervalOrigin: Origin | null;
  hintOneShotAt: Date | null;
  hintOneShotExpiresAt: Date | null;
  hintOneShotOrigin: Origin | null;
}

/** A schedule change with origin planner (the shape db/scheduling.ts applies). */
export type PlannerChange =
  | { kind: 'pause'; pausedUntil: Date | null; reason: string | null; origin: 'planner' }
  | { kind: 'interval-hint'; intervalMs: number; expiresAt: Date; reason: string; origin: 'planner' }
  | { kind: 'one-shot-hint'; nextRunAt: Date; expiresAt: Date; reason: string; origin: 'planner' }
  | { kind: 'clear-hints' }
  | AiRulesChange;

/**
 * The planner's own response rules, replacing its earlier ones (never the user's). successWhen
 * undefined keeps the planner's current one; null removes it. sessionId: the analysis that set them.
 */
export interface AiRulesChange {
  kind: 'ai-rules';
  rules: ResponseRule[] | null;
  successWhen?: SuccessWhen | null;
  reason: string;
  expiresAt: Date;
  sessionId?: string;
}

export type GovernorVerdict =
  | { kind: 'apply'; change: PlannerChange; summary: string }
  /** The proposal is not allowed; `summary` says why. */
  | { kind: 'refuse'; summary: string }
  /** Allowed but there is nothing to change. */
  | { kind: 'noop'; summary: string };

const MS_PER_MINUTE = 60_000;
const iso = (date: Date) => date.toISOString();

function activePause(target: GovernorTarget, now: Date): Date | null {
  return target.pausedUntil !== null && target.pausedUntil > now ? target.pausedUntil : null;
}

function activeIntervalHint(target: GovernorTarget, now: Date): { expiresAt: Date; origin: Origin } | null {
  if (target.hintIntervalMs === null || !isHintActive(target.hintIntervalExpiresAt, now)) return null;
  return { expiresAt: target.hintIntervalExpiresAt!, origin: target.hintIntervalOrigin ?? 'user' };
}

function activeOneShot(target: GovernorTarget, now: Date): { expiresAt: Date; origin: Origin } | null {
  if (target.hintOneShotAt === null || !isHintActive(target.hintOneShotExpiresAt, now)) return null;
  return { expiresAt: target.hintOneShotExpiresAt!, origin: target.hintOneShotOrigin ?? 'user' };
}

function pauseNote(target: GovernorTarget, now: Date): string {
  const pausedUntil = activePause(target, now);
  return pausedUntil ? `; the endpoint is paused until ${iso(pausedUntil)}, so the hint applies after the pause` : '';
}

/**
 * `accountMinIntervalMs` is the account's minimum interval (tier quota, tiers.ts): the API refuses
 * a user's hint below it; the governor raises a planner proposal to it.
 */
export function governIntervalProposal(
  target: GovernorTarget,
  input: PlannerToolInput<'propose_interval'>,
  now: Date,
  accountMinIntervalMs = 0,
): GovernorVerdict {
  const check = checkIntervalHint(target, input, now);
  if (!check.ok) return { kind: 'refuse', summary: check.issues.map((issue) => issue.message).join('; ') };
  const userHint = activeIntervalHint(target, now);
  if (userHint?.origin === 'user') {
    return {
      kind: 'refuse',
      summary: `a user-set interval hint is active until ${iso(userHint.expiresAt)}; the planner does not replace it`,
    };
  }
  const { expiresAt } = check.value;
  let { clampedIntervalMs } = check.value;
  let clampNote = '';
  if (clampedIntervalMs < accountMinIntervalMs) {
    clampedIntervalMs = accountMinIntervalMs;
    clampNote = ` (requested ${input.intervalMs} ms, raised to the account's minimum interval ${clampedIntervalMs} ms)`;
  } else if (clampedIntervalMs !== input.intervalMs) {
    const bound = clampedIntervalMs === target.minIntervalMs ? 'minIntervalMs' : 'maxIntervalMs';
    clampNote = ` (requested ${input.intervalMs} ms, clamped to ${bound} ${clampedIntervalMs} ms)`;
  }
  return {
    kind: 'apply',
    change: {
      kind: 'interval-hint',
      intervalMs: clampedIntervalMs,
      expiresAt,
      reason: input.reason,
      origin: 'planner',
    },
    summary: `interval ${clampedIntervalMs} ms until ${iso(expiresAt)}${clampNote}${pauseNote(target, now)}`,
  };
}

export function governNextTimeProposal(
  target: GovernorTarget,
  input: PlannerToolInput<'propose_next_time'>,
  now: Date,
): GovernorVerdict {
  const nextRunAt = new Date(input.nextRunAt);
  const delayMinutes = Math.max(0, nextRunAt.getTime() - now.getTime()) / MS_PER_MINUTE;
  const ttlMinutes = input.ttlMinutes ?? delayMinutes + PLANNER_LIMITS.oneShotGraceMinutes;
  if (ttlMinutes > PLANNER_LIMITS.hintTtlMaxMinutes) {
    return {
      kind: 'refuse',
      summary: `nextRunAt ${iso(nextRunAt)} is too far ahead: planner one-shots expire within ${PLANNER_LIMITS.hintTtlMaxMinutes} minutes`,
    };
  }
  const userHint = activeOneShot(target, now);
  if (userHint?.origin === 'user') {
    return {
      kind: 'refuse',
      summary: `a user-set one-shot hint is active until ${iso(userHint.expiresAt)}; the planner does not replace it`,
    };
  }
  const check = checkOneShotHint(target, { nextRunAt, ttlMinutes }, now);
  if (!check.ok) return { kind: 'refuse', summary: check.issues.map((issue) => issue.message).join('; ') };
  const { nextRunAt: at, expiresAt } = check.value;
  let floorNote = '';
  if (target.lastRunAt !== null && target.minIntervalMs !== null) {
    const floor = new Date(target.lastRunAt.getTime() + target.minIntervalMs);
    if (floor > at) floorNote = ` (the minIntervalMs floor moves it to ${iso(floor)})`;
  }
  return {
    kind: 'apply',
    change: { kind: 'one-shot-hint', nextRunAt: at, expiresAt, reason: input.reason, origin: 'planner' },
    summary: `one run at ${iso(at)}${floorNote}, which replaces the scheduled runs until then; hint expires ${iso(expiresAt)}${pauseNote(target, now)}`,
  };
}

export function governPause(
  target: GovernorTarget,
  input: PlannerToolInput<'pause_until'>,
  now: Date,
): GovernorVerdict {
  const current = activePause(target, now);
  if (current !== null && target.pauseOrigin !== 'planner') {
    return {
      kind: 'refuse',
      summary:
        target.pauseOrigin === 'rule'
          ? `the endpoint was paused by a response rule until ${iso(current)}; the planner never lifts or changes a rule's pause`
          : `the endpoint was paused by a user until ${iso(current)}; the planner never lifts or changes a user's pause`,
    };
  }
  if (input.pausedUntil === null) {
    if (current === null) return { kind: 'noop', summary: 'the endpoint is not paused; nothing to resume' };
    return {
      kind: 'apply',
      change: { kind: 'pause', pausedUntil: null, reason: null, origin: 'planner' },
      summary: `resumed (the planner's pause until ${iso(current)} is lifted)`,
    };
  }
  const pausedUntil = new Date(input.pausedUntil);
  const check = checkPause(pausedUntil, now);
  if (!check.ok) return { kind: 'refuse', summary: check.issues.map((issue) => issue.message).join('; ') };
  const latest = new Date(now.getTime() + PLANNER_LIMITS.pauseMaxMinutes * MS_PER_MINUTE);
  if (pausedUntil > latest) {
    return {
      kind: 'refuse',
      summary: `pausedUntil ${iso(pausedUntil)} is too far ahead: planner pauses end within 7 days (by ${iso(latest)})`,
    };
  }
  const runBy = maxPauseEnd(target, now);
  if (runBy !== null && pausedUntil > runBy) {
    if (runBy <= now) {
      return {
        kind: 'refuse',
        summary: `the endpoint must run by ${iso(runBy)} (lastRunAt + maxIntervalMs ${target.maxIntervalMs} ms); a planner pause cannot hold it past that`,
      };
    }
    return {
      kind: 'apply',
      change: { kind: 'pause', pausedUntil: runBy, reason: input.reason, origin: 'planner' },
      summary: `paused until ${iso(runBy)} (requested until ${iso(pausedUntil)}, cut to lastRunAt + maxIntervalMs)`,
    };
  }
  return {
    kind: 'apply',
    change: { kind: 'pause', pausedUntil, reason: input.reason, origin: 'planner' },
    summary: `paused until ${iso(pausedUntil)}`,
  };
}

/** The latest end of a planner pause: lastRunAt (or now, before the first run) + maxIntervalMs. */
function maxPauseEnd(target: GovernorTarget, now: Date): Date | null {
  if (target.maxIntervalMs === null) return null;
  return new Date((target.lastRunAt ?? now).getTime() + target.maxIntervalMs);
}

export function governClearHints(target: GovernorTarget, now: Date): GovernorVerdict {
  const hints = [
    ['interval', activeIntervalHint(target, now)],
    ['one-shot', activeOneShot(target, now)],
  ] as const;
  const active = hints.filter(([, hint]) => hint !== null);
  if (active.length === 0) return { kind: 'noop', summary: 'no active hints; nothing to clear' };
  const byUser = active.find(([, hint]) => hint!.origin === 'user');
  if (byUser) {
    return {
      kind: 'refuse',
      summary: `the ${byUser[0]} hint was set by a user and stays until ${iso(byUser[1]!.expiresAt)}; the planner does not clear it`,
    };
  }
  return {
    kind: 'apply',
    change: { kind: 'clear-hints' },
    summary: `cleared the ${active.map(([name]) => name).join(' and ')} hint; the baseline schedule applies`,
  };
}

/** What governRulesProposal reads: the endpoint's baseline, bounds and the user's own rules. */
export interface RulesTarget {
  baselineCron: string | null;
  minIntervalMs: number | null;
  maxIntervalMs: number | null;
  /** The user's successWhen and rules (stored JSON; never changed by the planner). */
  successWhen: unknown;
  rules: unknown;
}

const formatMs = (ms: number) => `${ms} ms`;

/**
 * The planner's response rules (propose_rules), clamped as hints are: at most 10 rules; conditions
 * validated as the user's are (the tool's schema) plus the checks that need the endpoint (interval
 * rules only on an interval baseline, at most four `matches` conditions counting the user's); no
 * runEndpoint (the planner changes only the endpoint it analyses); each intervalMs raised to
 * minIntervalMs and the account's minimum and lowered to maxIntervalMs; each pauseMs cut to
 * maxIntervalMs (the user's promise that the endpoint runs that often) and to 7 days. The rules are
 * stored apart from the user's, their names prefixed "planner: ", and lapse after 7 days unless an
 * analysis renews or replaces them. `rules: []` (without successWhen) removes them.
 */
export function governRulesProposal(
  target: RulesTarget,
  input: PlannerToolInput<'propose_rules'>,
  now: Date,
  accountMinIntervalMs = 0,
): GovernorVerdict {
  const refuse = (why: string): GovernorVerdict => ({ kind: 'refuse', summary: why });
  if (input.rules.length > AI_RULE_LIMITS.rulesMax) {
    return refuse(`at most ${AI_RULE_LIMITS.rulesMax} rules from the planner (${input.rules.length} proposed)`);
  }
  const names = new Set<string>();
  for (const [index, rule] of input.rules.entries()) {
    if (rule.then.runEndpoint !== undefined) {
      return refuse(
        `rules[${index}].then.runEndpoint: the planner changes only the endpoint it analyses; runEndpoint is for the user's rules`,
      );
    }
    if (names.has(rule.name)) return refuse(`rules[${index}].name: rule names must differ`);
    names.add(rule.name);
  }
  const successWhen = input.successWhen === undefined ? undefined : input.successWhen;
  const issues = checkResponseRules(
    { baselineCron: target.baselineCron, successWhen: successWhen ?? null, rules: input.rules },
    null,
  );
  if (issues.length > 0) return refuse(issues.map((issue) => `${issue.field}: ${issue.message}`).join('; '));
  const userRules = Array.isArray(target.rules) ? (target.rules as ResponseRule[]) : null;
  const userSuccessWhen = (target.successWhen as SuccessWhen | null) ?? null;
  const matches = [
    ...conditionsOf(userSuccessWhen, userRules),
    ...conditionsOf(userSuccessWhen === null ? (successWhen ?? null) : null, input.rules),
  ].filter(({ condition }) => condition.op === 'matches').length;
  if (matches > REGEX_LIMITS.matchesPerEndpoint) {
    return refuse(
      `an endpoint has at most ${REGEX_LIMITS.matchesPerEndpoint} matches conditions, the user's and the planner's together (${matches} proposed)`,
    );
  }

  const notes: string[] = [];
  const floor = Math.max(target.minIntervalMs ?? 0, accountMinIntervalMs);
  const pauseCap = Math.min(target.maxIntervalMs ?? Infinity, PLANNER_LIMITS.pauseMaxMinutes * MS_PER_MINUTE);
  const rules: ResponseRule[] = input.rules.map((rule) => {
    const then = { ...rule.then };
    if (then.intervalMs !== undefined) {
      let clamped = Math.max(then.intervalMs, floor);
      if (target.maxIntervalMs !== null) clamped = Math.min(clamped, target.maxIntervalMs);
      if (clamped !== then.intervalMs) {
        const bound =
          clamped === target.maxIntervalMs
            ? 'maxIntervalMs'
            : clamped === accountMinIntervalMs && accountMinIntervalMs > (target.minIntervalMs ?? 0)
              ? "the account's minimum interval"
              : 'minIntervalMs';
        notes.push(`${rule.name}: intervalMs ${formatMs(then.intervalMs)} clamped to ${bound} ${formatMs(clamped)}`);
        then.intervalMs = clamped;
      }
    }
    if (then.pauseMs !== undefined && then.pauseMs > pauseCap) {
      notes.push(`${rule.name}: pauseMs ${formatMs(then.pauseMs)} cut to ${formatMs(pauseCap)}`);
      then.pauseMs = pauseCap;
    }
    return { ...rule, name: `${AI_RULE_LIMITS.namePrefix}${rule.name}`, then };
  });
  const expiresAt = new Date(now.getTime() + AI_RULE_LIMITS.ttlMinutes * MS_PER_MINUTE);
  const clearing = rules.length === 0 && !successWhen;
  const what = clearing
    ? "removed the planner's rules"
    : `${rules.length} rule${rules.length === 1 ? '' : 's'}${successWhen ? ' and a successWhen' : ''} until ${iso(expiresAt)}, evaluated after the user's rules`;
  return {
    kind: 'apply',
    change: {
      kind: 'ai-rules',
      rules: rules.length > 0 ? rules : null,
      ...(successWhen === undefined && !clearing ? {} : { successWhen: successWhen ?? null }),
      reason: input.reason,
      expiresAt,
    },
    summary: `${what}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}${
      userSuccessWhen !== null && successWhen ? "; the endpoint's own successWhen applies, not yours" : ''
    }`,
  };
}
