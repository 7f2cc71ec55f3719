/**
 * Response rules (opt-in per endpoint; neither field set: the endpoint behaves as without them):
 * `successWhen` decides from the response whether a run succeeded, `rules` act on every recorded
 * run (packages/core/src/rules). The zod shapes, shared by the API, the MCP tools and the UI, check
 * each condition where it is written (path, operator, value, pattern), so a refusal names the field
 * (`rules[2].when.all[0].path`); checkResponseRules checks what needs the whole endpoint or its job.
 */
import { z } from 'zod';
import { CONDITION_OPS, type ConditionOp } from '../rules/conditions.js';
import { parsePath, PATH_MAX_LENGTH } from '../rules/path.js';
import { compileBoundedRegex, REGEX_LIMITS } from '../rules/regex.js';
import type { FieldIssue } from './endpoint.js';
import { LIMITS } from './limits.js';

export const RESPONSE_RULE_LIMITS = {
  rulesMax: 20,
  conditionsMax: 20,
  statusesMax: 20,
  ruleNameMaxLength: 100,
  /** A condition's value as JSON. */
  valueMaxLength: 1000,
  /** How many scheduled runs a backtest replays by default, and at most. */
  backtestDefaultRuns: 500,
  backtestMaxRuns: 5000,
} as const;

export const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

const statusList = z
  .array(
    z.union(
      [z.number().int().min(100).max(599), z.enum(STATUS_CLASSES)],
      'must be an HTTP status code (100 to 599) or a class such as "2xx"',
    ),
  )
  .min(1, 'must list at least one status')
  .max(RESPONSE_RULE_LIMITS.statusesMax, `at most ${RESPONSE_RULE_LIMITS.statusesMax} statuses`)
  .meta({ description: 'HTTP status codes (200) and classes ("2xx")', example: ['2xx', 304] });

const VALUE_OPS: readonly ConditionOp[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'matches'];

export const responseCondition = z
  .strictObject({
    path: z.string().meta({
      description:
        'What to read: $ (the whole body; a text body as a string), $.key.sub, $.items[0] ([-1] the last), ' +
        `$["odd key"], $status (the HTTP status), $durationMs; at most ${PATH_MAX_LENGTH} characters`,
      example: '$.backlog',
    }),
    op: z.enum(CONDITION_OPS, { error: `must be one of ${CONDITION_OPS.join(', ')}` }).meta({
      description:
        'eq, ne (JSON equality), gt, gte, lt, lte (numbers, or strings by code unit), exists, missing (no value), ' +
        'contains (substring, or an array element), matches (RE2 regular expression). A missing value makes every ' +
        'operator but missing false',
    }),
    // Any JSON (the request body is JSON); unknown rather than z.json() keeps the generated client's type plain.
    value: z
      .unknown()
      .optional()
      .meta({
        description:
          'What to compare with (not for exists and missing): any JSON for eq, ne, contains; a number or a string for ' +
          `gt, gte, lt, lte; the pattern for matches (RE2 syntax, at most ${REGEX_LIMITS.patternMaxLength} characters)`,
        example: 100,
      }),
  })
  .superRefine((condition, ctx) => {
    const path = parsePath(condition.path);
    if (!path.ok) ctx.addIssue({ code: 'custom', path: ['path'], message: path.message });
    const needsValue = VALUE_OPS.includes(condition.op);
    if (!needsValue && condition.value !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `${condition.op} takes no value` });
      return;
    }
    if (!needsValue) return;
    if (condition.value === undefined) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `${condition.op} needs a value` });
      return;
    }
    if (JSON.stringify(condition.value).length > RESPONSE_RULE_LIMITS.valueMaxLength) {
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: `must be at most ${RESPONSE_RULE_LIMITS.valueMaxLength} characters as JSON`,
      });
    }
    const { op, value } = condition;
    if (['gt', 'gte', 'lt', 'lte'].includes(op) && typeof value !== 'number' && typeof value !== 'string') {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `${op} compares with a number or a string` });
    }
    if (op === 'matches') {
      const compiled = typeof value === 'string' ? compileBoundedRegex(value) : null;
      if (!compiled || !compiled.ok) {
        ctx.addIssue({
          code: 'custom',
          path: ['value'],
          message: compiled ? compiled.message : 'matches needs a regular expression as a string',
        });
      }
    }
  })
  .meta({
    id: 'ResponseCondition',
    description: 'A test of the response: the value at path, compared by op with value',
    example: { path: '$.backlog', op: 'gt', value: 100 },
  });
export type ResponseCondition = z.infer<typeof responseCondition>;

const conditions = (what: string) =>
  z
    .array(responseCondition)
    .max(RESPONSE_RULE_LIMITS.conditionsMax, `at most ${RESPONSE_RULE_LIMITS.conditionsMax} conditions`)
    .meta({ description: what });

export const successWhenInput = z
  .strictObject({
    status: statusList.optional().meta({
      description: 'The statuses that may succeed (default 2xx and 3xx); a status not listed fails as http_status',
    }),
    all: conditions('Every one must hold, or the run fails with errorKind assertion_failed').optional(),
  })
  .meta({
    id: 'SuccessWhen',
    description:
      'When a run succeeds, decided from its response: its status is listed and every condition holds. A run that ' +
      'fails a condition is failed with errorKind assertion_failed and an errorMessage naming the condition and the ' +
      'value seen; it counts as any failure (failure count, backoff, auto-pause, notifications). Timeouts and ' +
      'connection errors stay failed. Default null: HTTP 2xx and 3xx succeed',
    example: { status: ['2xx'], all: [{ path: '$.ok', op: 'eq', value: true }] },
  });
export type SuccessWhen = z.infer<typeof successWhenInput>;

const ruleInterval = (what: string) =>
  z
    .number({ error: 'must be a number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(LIMITS.intervalMinMs, `${what} must be at least ${LIMITS.intervalMinMs} ms`)
    .max(LIMITS.intervalMaxMs, `${what} must be at most ${LIMITS.intervalMaxMs} ms`);

export const ruleAction = z
  .strictObject({
    intervalMs: ruleInterval('intervalMs')
      .optional()
      .meta({
        description:
          'Run every intervalMs while the rule keeps matching: an interval hint with origin rule, clamped to ' +
          'minIntervalMs/maxIntervalMs, renewed by each matching run and ended by the first run that does not ' +
          'match. Interval-baseline endpoints only. With several, the first matching rule wins',
        example: 60000,
      }),
    pauseMs: ruleInterval('pauseMs')
      .optional()
      .meta({ description: "Pause the endpoint for pauseMs from the run's end, with the rule's name as reason" }),
    runEndpoint: z
      .uuid('must be an endpoint id')
      .optional()
      .meta({ description: 'Run this other endpoint of the same job once now (its run has source rule)' }),
    analyse: z.literal(true).optional().meta({
      description: 'Start a planner analysis of this endpoint now, within the planner spacing, AI budget and AI switch',
    }),
  })
  .superRefine((action, ctx) => {
    const given = Object.values(action).filter((value) => value !== undefined).length;
    if (given === 0) {
      ctx.addIssue({ code: 'custom', message: 'give at least one of intervalMs, pauseMs, runEndpoint, analyse' });
    }
    if (action.intervalMs !== undefined && action.pauseMs !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['pauseMs'], message: 'give either intervalMs or pauseMs, not both' });
    }
  })
  .meta({ id: 'RuleAction', description: 'What a matching rule does (one or more of these)' });
export type RuleAction = z.infer<typeof ruleAction>;

export const RUN_STATUS_VALUES = ['success', 'failed'] as const;

export const ruleCondition = z
  .strictObject({
    status: statusList.optional().meta({ description: 'The HTTP status is one of these' }),
    runStatus: z
      .enum(RUN_STATUS_VALUES)
      .optional()
      .meta({ description: "The run's status after successWhen: success or failed" }),
    all: conditions('Every one holds').optional(),
    any: conditions('At least one holds (when given and not empty)').optional(),
  })
  .meta({
    id: 'RuleCondition',
    description: 'When the rule matches: every part given holds (an empty object matches every run)',
  });

export const responseRule = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(
        RESPONSE_RULE_LIMITS.ruleNameMaxLength,
        `must be at most ${RESPONSE_RULE_LIMITS.ruleNameMaxLength} characters`,
      )
      .meta({
        description: "Shown in runs' rulesMatched, as the pause reason and in ruleState",
        example: 'backlog high',
      }),
    when: ruleCondition,
    then: ruleAction,
  })
  .meta({ id: 'ResponseRule' });
export type ResponseRule = z.infer<typeof responseRule>;

/** A list of rules as the API takes it; configuration files use it with rules naming siblings by key. */
export const ruleListOf = <Rule extends z.ZodType<{ name: string }>>(rule: Rule) =>
  z
    .array(rule)
    .max(RESPONSE_RULE_LIMITS.rulesMax, `at most ${RESPONSE_RULE_LIMITS.rulesMax} rules`)
    .superRefine((rules, ctx) => {
      const seen = new Set<string>();
      rules.forEach((rule, index) => {
        if (seen.has(rule.name))
          ctx.addIssue({ code: 'custom', path: [index, 'name'], message: 'rule names must differ' });
        seen.add(rule.name);
      });
    });

export const responseRules = ruleListOf(responseRule).meta({
  description:
    'Evaluated in order after every scheduled run, at no token cost; every matching rule acts (the first ' +
    'interval and the first pause win). Each run records the names in rulesMatched. Default null: no rules',
  example: [
    {
      name: 'backlog high',
      when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] },
      then: { intervalMs: 60000 },
    },
  ],
});

/** What checkResponseRules needs beyond the endpoint: its id, the account's minimum and its job's endpoints. */
export interface ResponseRulesContext {
  /** null while the endpoint is being created. */
  endpointId: string | null;
  /** The account's minimum interval (tiers.ts). */
  accountMinIntervalMs: number;
  /** The other endpoints of the same job that are not archived, with their stored rules. */
  siblings: { id: string; rules: ResponseRule[] | null }[];
}

/** Field names as the API reports them: `rules[2].when.all[0].path`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => {
    if (typeof key === 'number') return `${text}[${key}]`;
    return text === '' ? String(key) : `${text}.${String(key)}`;
  }, '');
}

/** Each condition with its field path, successWhen's then the rules'. */
export function conditionsOf(
  successWhen: SuccessWhen | null,
  rules: ResponseRule[] | null,
): { field: string; condition: ResponseCondition }[] {
  const found = (successWhen?.all ?? []).map((condition, i) => ({ field: `successWhen.all[${i}]`, condition }));
  (rules ?? []).forEach((rule, r) => {
    for (const part of ['all', 'any'] as const) {
      (rule.when[part] ?? []).forEach((condition, i) =>
        found.push({ field: `rules[${r}].when.${part}[${i}]`, condition }),
      );
    }
  });
  return found;
}

/**
 * The checks that need the whole endpoint (its baseline) or its job: interval rules only on an
 * interval baseline (cron endpoints refuse interval hints) and not below the account's minimum
 * interval; at most four `matches` conditions; runEndpoint names another, unarchived endpoint of
 * the same job, and no chain of runEndpoint rules returns to this endpoint.
 */
export function checkResponseRules(
  config: { baselineCron: string | null; successWhen: SuccessWhen | null; rules: ResponseRule[] | null },
  context: ResponseRulesContext | null,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const matches = conditionsOf(config.successWhen, config.rules).filter(({ condition }) => condition.op === 'matches');
  if (matches.length > REGEX_LIMITS.matchesPerEndpoint) {
    issues.push({
      field: `${matches[REGEX_LIMITS.matchesPerEndpoint]!.field}.op`,
      message: `an endpoint has at most ${REGEX_LIMITS.matchesPerEndpoint} matches conditions (successWhen and rules together)`,
    });
  }
  const rules = config.rules ?? [];
  rules.forEach((rule, index) => {
    const { intervalMs, runEndpoint } = rule.then;
    const field = `rules[${index}].then`;
    if (intervalMs !== undefined && config.baselineCron !== null) {
      issues.push({
        field: `${field}.intervalMs`,
        message:
          'cron-scheduled endpoints do not support interval rules (as interval hints); adaptive interval behaviour needs baselineIntervalMs',
      });
    } else if (intervalMs !== undefined && context && intervalMs < context.accountMinIntervalMs) {
      issues.push({
        field: `${field}.intervalMs`,
        message: `intervalMs (${intervalMs} ms) is below this account's minimum interval of ${context.accountMinIntervalMs} ms`,
      });
    }
    if (runEndpoint === undefined || !context) return;
    if (runEndpoint === context.endpointId) {
      issues.push({ field: `${field}.runEndpoint`, message: 'a rule cannot run its own endpoint' });
    } else if (!context.siblings.some((sibling) => sibling.id === runEndpoint)) {
      issues.push({
        field: `${field}.runEndpoint`,
        message: `${runEndpoint} is not an endpoint of this job (nor archived): a rule runs only endpoints of its own job`,
      });
    } else if (context.endpointId !== null) {
      const loop = chainBackTo(context.endpointId, runEndpoint, context.siblings);
      if (loop) {
        issues.push({
          field: `${field}.runEndpoint`,
          message: `the chain this rule starts returns to this endpoint (${[context.endpointId, ...loop].join(' → ')}): chains must not loop`,
        });
      }
    }
  });
  return issues;
}

/** The runEndpoint path from `start` back to `origin` through the siblings' stored rules, or null. */
function chainBackTo(
  origin: string,
  start: string,
  siblings: { id: string; rules: ResponseRule[] | null }[],
): string[] | null {
  const targets = new Map(
    siblings.map((sibling) => [
      sibling.id,
      (sibling.rules ?? []).flatMap((rule) => (rule.then.runEndpoint ? [rule.then.runEndpoint] : [])),
    ]),
  );
  const visited = new Set<string>();
  const walk = (id: string, trail: string[]): string[] | null => {
    if (id === origin) return trail;
    if (visited.has(id)) return null;
    visited.add(id);
    for (const next of targets.get(id) ?? []) {
      const found = walk(next, [...trail, next]);
      if (found) return found;
    }
    return null;
  };
  return walk(start, [start]);
}
