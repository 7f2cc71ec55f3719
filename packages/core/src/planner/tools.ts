/**
 * The planner's tools (names exact: the public tool names) and the final report tool, as zod input schemas.
 * The same schema validates a tool call (a malformed input goes back to the model as a tool error)
 * and, converted to JSON Schema, tells the model what to send.
 *
 * Every tool acts on the endpoint under analysis only: none takes an endpoint id, so the model has
 * no way to name another endpoint. Siblings are read as a snapshot.
 */
import { z } from 'zod';
import { LIMITS } from '../schemas/limits.js';
import { responseRule, successWhenInput } from '../schemas/response-rules.js';
import { SCHEDULING_LIMITS } from '../schemas/scheduling.js';
import { toStorableJson } from '../storable.js';

export const PLANNER_LIMITS = {
  /** Planner hints live at most a day: the planner looks again well within that (see nextAnalysisInMinutes). */
  hintTtlMaxMinutes: 1440,
  /** A one-shot without ttlMinutes expires this long after its run time. */
  oneShotGraceMinutes: 15,
  /** A planner pause ends within a week (SCHEDULING_LIMITS.hintTtlMaxMinutes). */
  pauseMaxMinutes: SCHEDULING_LIMITS.hintTtlMaxMinutes,
  /** get_response_history reads the scheduled runs of the last 24 hours. */
  historySinceHours: 24,
  historyDefaultLimit: 10,
  historyMaxLimit: 50,
  /** get_sibling_latest_responses shows at most this many siblings, the oldest first. */
  siblingsMax: 20,
  /** The model chooses when to look again within these bounds. */
  nextAnalysisMinMinutes: 1,
  nextAnalysisMaxMinutes: 1440,
  nextAnalysisDefaultMinutes: 60,
  /** The planner reads the first 500 characters of a response body. */
  responseBodyMaxChars: 500,
  reasoningMaxLength: 4000,
  /**
   * Bounds on what one answer and one analysis may do (services/planner/src/tool-loop.ts). 8 calls
   * per answer: each of the seven tools and submit_analysis once. 4 writes per answer: each write
   * tool once (a second call of one kind in one answer only replaces the first). 8 writes per
   * analysis: room to correct a refused proposal twice over, while a model that loops stages at
   * most 8 changes (so at most 8 audit rows and one notification per analysis). Calls past a bound
   * are answered "not run" and listed in the session.
   */
  toolCallsPerAnswerMax: 8,
  writesPerAnswerMax: 4,
  writesPerAnalysisMax: 8,
} as const;

export const PLANNER_WRITE_TOOLS = ['propose_interval', 'propose_next_time', 'pause_until', 'clear_hints'] as const;
export const PLANNER_READ_TOOLS = [
  'get_latest_response',
  'get_response_history',
  'get_sibling_latest_responses',
] as const;
export const SUBMIT_ANALYSIS_TOOL = 'submit_analysis';
/**
 * The tool beside the seven, offered only when the account turns AI rules on (accounts.aiRules):
 * the model writes response rules of its own, which the governor clamps (governRulesProposal).
 */
export const PLANNER_RULES_TOOL = 'propose_rules';

export type PlannerWriteTool = (typeof PLANNER_WRITE_TOOLS)[number];
export type PlannerReadTool = (typeof PLANNER_READ_TOOLS)[number];
export type PlannerToolName =
  PlannerWriteTool | PlannerReadTool | typeof SUBMIT_ANALYSIS_TOOL | typeof PLANNER_RULES_TOOL;
/** The tools whose proposals are staged and applied when the analysis completes. */
export type PlannerStagedTool = PlannerWriteTool | typeof PLANNER_RULES_TOOL;

/** Bounds on the planner's own response rules (governor.ts, governRulesProposal). */
export const AI_RULE_LIMITS = {
  /** AI rules per endpoint. */
  rulesMax: 10,
  /** AI rules lapse this long after the analysis that set or last renewed them. */
  ttlMinutes: 7 * 24 * 60,
  /** Prefixed to each AI rule's name, so a run's rulesMatched and ruleState tell them from the user's. */
  namePrefix: 'planner: ',
} as const;

export const CONFIDENCE_LEVELS = ['low', 'medium', 'high'] as const;

const reason = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(SCHEDULING_LIMITS.reasonMaxLength, `must be at most ${SCHEDULING_LIMITS.reasonMaxLength} characters`)
  .describe('Why, in one sentence (shown to the user on the endpoint)');

export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** An ISO 8601 time with a zone (a refinement, so the JSON Schema the model reads stays short). */
const timestamp = z
  .string()
  .refine((value) => ISO_TIME.test(value) && !Number.isNaN(Date.parse(value)), {
    message: 'must be an ISO 8601 time with a zone, e.g. 2026-11-21T12:00:00Z',
  })
  .meta({ format: 'date-time' });

const plannerTtlMinutes = z
  .number()
  .positive('must be greater than 0')
  .max(PLANNER_LIMITS.hintTtlMaxMinutes, `must be at most ${PLANNER_LIMITS.hintTtlMaxMinutes} minutes (24 hours)`);

export const PLANNER_TOOL_INPUTS = {
  propose_interval: z.strictObject({
    intervalMs: z
      .number()
      .int('must be a whole number of milliseconds')
      .min(LIMITS.intervalMinMs, `must be at least ${LIMITS.intervalMinMs} ms`)
      .max(LIMITS.intervalMaxMs, `must be at most ${LIMITS.intervalMaxMs} ms`)
      .describe(
        'Milliseconds between runs while the hint is active (clamped to the endpoint minIntervalMs/maxIntervalMs)',
      ),
    ttlMinutes: plannerTtlMinutes.describe(
      'Minutes until the hint expires and the baseline applies again (at most 1440)',
    ),
    reason,
  }),
  propose_next_time: z.strictObject({
    nextRunAt: timestamp.describe(
      'ISO 8601 time of the one run; no scheduled run happens before it (a past time means as soon as possible)',
    ),
    ttlMinutes: plannerTtlMinutes
      .optional()
      .describe(
        `Minutes until the one-shot hint expires (default: until ${PLANNER_LIMITS.oneShotGraceMinutes} minutes after nextRunAt)`,
      ),
    reason,
  }),
  pause_until: z.strictObject({
    pausedUntil: timestamp
      .nullable()
      .describe('Pause runs until this ISO 8601 time (at most 7 days ahead); null resumes a pause the planner set'),
    reason,
  }),
  clear_hints: z.strictObject({ reason }),
  propose_rules: z.strictObject({
    rules: z
      .array(responseRule)
      .max(20, 'at most 20 rules')
      .describe(
        `The rules, in order, replacing your earlier ones (at most ${AI_RULE_LIMITS.rulesMax}; [] removes them). Each ` +
          '{ name, when: { status?, runStatus?, all?, any? }, then: { intervalMs? | pauseMs?, analyse? } }. ' +
          'They run after every scheduled run, after the user rules, at no token cost. then.analyse true wakes you ' +
          'on the run that matches: use it for what you cannot foresee (a field disappears, a 429)',
      ),
    successWhen: successWhenInput
      .nullable()
      .optional()
      .describe(
        'When a run succeeds, from its response (used only while the endpoint has no successWhen of its own); null removes yours',
      ),
    reason,
  }),
  get_latest_response: z.strictObject({}),
  get_response_history: z.strictObject({
    limit: z
      .number()
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(PLANNER_LIMITS.historyMaxLimit, `must be at most ${PLANNER_LIMITS.historyMaxLimit}`)
      .optional()
      .describe(
        `How many runs of the last ${PLANNER_LIMITS.historySinceHours} hours, newest first (default ${PLANNER_LIMITS.historyDefaultLimit})`,
      ),
  }),
  get_sibling_latest_responses: z.strictObject({}),
  submit_analysis: z.strictObject({
    reasoning: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(PLANNER_LIMITS.reasoningMaxLength, `must be at most ${PLANNER_LIMITS.reasoningMaxLength} characters`)
      .describe('Your explanation: what you saw, what you changed (or why nothing), shown to the user'),
    confidence: z.enum(CONFIDENCE_LEVELS).describe('How sure you are of the decision'),
    nextAnalysisInMinutes: z
      .number()
      .min(PLANNER_LIMITS.nextAnalysisMinMinutes, `must be at least ${PLANNER_LIMITS.nextAnalysisMinMinutes}`)
      .max(PLANNER_LIMITS.nextAnalysisMaxMinutes, `must be at most ${PLANNER_LIMITS.nextAnalysisMaxMinutes}`)
      .describe('When to analyse this endpoint again, in minutes (1 to 1440); sooner when things are changing'),
  }),
} as const satisfies Record<PlannerToolName, z.ZodType>;

export type PlannerToolInput<T extends PlannerToolName> = z.output<(typeof PLANNER_TOOL_INPUTS)[T]>;
export type AnalysisReport = PlannerToolInput<'submit_analysis'>;

const DESCRIPTIONS: Record<PlannerToolName, string> = {
  propose_interval:
    'Run the endpoint every intervalMs for ttlMinutes, replacing its baseline (and backoff) until the hint expires. ' +
    'Clamped to minIntervalMs/maxIntervalMs. Refused on cron-scheduled endpoints and while a user-set interval hint is active.',
  propose_next_time:
    'Run the endpoint once at nextRunAt. Until then it replaces the scheduled runs: no baseline or interval-hint ' +
    'run happens before it (a time far ahead silences the endpoint until then); afterwards the schedule resumes ' +
    'from that run. Refused while a user-set one-shot hint is active.',
  pause_until:
    'Pause the endpoint until a time, or resume (null) a pause the planner set. A pause set by a user is never changed.',
  clear_hints: 'Remove the planner hints (interval and one-shot): back to the baseline schedule. User-set hints stay.',
  propose_rules:
    "Write the endpoint's description down as response rules of your own, evaluated on every run for free after " +
    'the user rules (which always win), so you need not be called to follow it. Clamped like hints (intervals inside ' +
    `minIntervalMs/maxIntervalMs and the account minimum; at most ${AI_RULE_LIMITS.rulesMax} rules; no runEndpoint). ` +
    'Replayed over the recorded runs first: the answer says what they would have done. They lapse after 7 days ' +
    'unless an analysis renews or replaces them.',
  get_latest_response: 'The latest run: status, status code, duration and the first 500 characters of the body.',
  get_response_history:
    `The scheduled runs of this endpoint in the last ${PLANNER_LIMITS.historySinceHours} hours (test runs left out), ` +
    `newest first, at most limit of them, each with the first ${PLANNER_LIMITS.responseBodyMaxChars} characters of its body.`,
  get_sibling_latest_responses:
    'A read-only snapshot of the other endpoints of the same job and their latest responses: at most ' +
    `${PLANNER_LIMITS.siblingsMax} of them, the oldest first (archived ones left out).`,
  submit_analysis:
    'Finish the analysis: your reasoning, your confidence and when to analyse again. Call it exactly once, last.',
};

export interface PlannerToolDefinition {
  name: PlannerToolName;
  description: string;
  /** JSON Schema of the input (the Messages API's `input_schema`). */
  input_schema: { type: 'object'; [key: string]: unknown };
}

/**
 * The tool list sent to the model, in a fixed order (write tools, read tools, then the report);
 * `rules` (the account's AI rules setting) adds propose_rules after the write tools.
 */
export function plannerToolDefinitions(options: { rules?: boolean } = {}): PlannerToolDefinition[] {
  const names: PlannerToolName[] = [
    ...PLANNER_WRITE_TOOLS,
    ...(options.rules ? [PLANNER_RULES_TOOL as PlannerToolName] : []),
    ...PLANNER_READ_TOOLS,
    SUBMIT_ANALYSIS_TOOL,
  ];
  return names.map((name) => {
    const { $schema: _ignored, ...schema } = z.toJSONSchema(PLANNER_TOOL_INPUTS[name], { io: 'input' }) as Record<
      string,
      unknown
    >;
    return { name, description: DESCRIPTIONS[name], input_schema: { ...schema, type: 'object' } };
  });
}

export const isPlannerToolName = (name: string): name is PlannerToolName => name in PLANNER_TOOL_INPUTS;
export const isPlannerWriteTool = (name: string): name is PlannerWriteTool =>
  (PLANNER_WRITE_TOOLS as readonly string[]).includes(name);
export const isPlannerStagedTool = (name: string): name is PlannerStagedTool =>
  name === PLANNER_RULES_TOOL || isPlannerWriteTool(name);

export type ToolInputCheck<T> = { ok: true; value: T } | { ok: false; message: string };

/** Validates a tool call's input; the message lists every problem for the model to fix. */
export function parsePlannerToolInput<T extends PlannerToolName>(
  name: T,
  input: unknown,
): ToolInputCheck<PlannerToolInput<T>> {
  // Model output is outside data: a U+0000 or lone surrogate in a reason would fail the write of
  // the hint it explains, so the input is made storable (U+FFFD) before it is judged.
  const parsed = PLANNER_TOOL_INPUTS[name].safeParse(toStorableJson(input ?? {})?.value ?? input);
  if (parsed.success) return { ok: true, value: parsed.data as PlannerToolInput<T> };
  const problems = parsed.error.issues.map((issue) => {
    const path = issue.path.join('.');
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  return { ok: false, message: `invalid input for ${name}: ${problems.join('; ')}` };
}
