/**
 * API records of the planner's work (analysis sessions, the AI analysis routes) and the
 * account's AI settings and budget (parts of the account record).
 */
import { z } from 'zod';
import { autoPauseAfterFailures, failureCountSetting } from '../schemas/auto-pause.js';
import { pagingQuery } from '../schemas/common.js';
import { SIGNING_KEY_GRACE_MAX_MINUTES } from '../signing/signature.js';
import { hostLimitInput, hostLimitsSetting } from '../host-limits.js';
import type { AiBudgetState } from './budget.js';
import { CONFIDENCE_LEVELS } from './tools.js';
import { ANALYSIS_STATUSES, ANALYSIS_TRIGGERS } from './when-to-analyse.js';

const isoTime = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });

/** Analysis sessions: default page size. */
export const ANALYSIS_SESSIONS_DEFAULT_LIMIT = 10;

export const listAnalysisSessionsQuery = pagingQuery(ANALYSIS_SESSIONS_DEFAULT_LIMIT);
export type ListAnalysisSessionsQuery = z.infer<typeof listAnalysisSessionsQuery>;

/** One proposal the planner made, as stored in actionsApplied. */
export const plannerActionRecord = z
  .object({
    tool: z.string().meta({ description: 'propose_interval, propose_next_time, pause_until or clear_hints' }),
    params: z.record(z.string(), z.unknown()).meta({
      description: 'The input the planner sent; past 2,000 characters of JSON: { cut: true, chars, preview }',
    }),
    result: z.string().meta({
      description:
        'What happened: "applied: …", "refused: …", "nothing to do: …", "shadow mode, not applied: …" or ' +
        '"not applied: …" (the analysis did not finish, or AI scheduling was turned off during it)',
    }),
    applied: z.boolean().meta({ description: 'Whether the endpoint was changed' }),
  })
  .meta({ id: 'PlannerAction' });
export type PlannerActionRecord = z.infer<typeof plannerActionRecord>;

const sessionFields = {
  id: z.string(),
  endpointId: z.string(),
  createdAt: isoTime.meta({ description: 'When the analysis started' }),
  status: z.enum(ANALYSIS_STATUSES).meta({
    description:
      'completed; failed (model error, timeout, step limit: see errorMessage; retried with backoff); ' +
      'skipped (the AI token budget was exhausted: see errorMessage)',
  }),
  shadow: z.boolean().meta({ description: 'Shadow mode: proposals were recorded but not applied' }),
  trigger: z
    .string()
    .nullable()
    .meta({ description: `Why it ran: ${ANALYSIS_TRIGGERS.join(', ')}` }),
  reasoning: z.string().nullable().meta({ description: "The planner's explanation" }),
  toolsCalled: z.array(z.string()).meta({ description: 'Planner tools called, in order (repeats kept)' }),
  tokenUsage: z.number().int().meta({ description: 'Model tokens used (input + output, summed over the tool loop)' }),
  durationMs: z.number().int(),
  nextAnalysisAt: isoTime.nullable().meta({ description: 'When the planner looks at this endpoint again' }),
  endpointFailureCount: z.number().int().meta({ description: "The endpoint's consecutive failures at the analysis" }),
  errorMessage: z.string().nullable().meta({ description: 'Why the analysis failed or was skipped' }),
};

export const analysisSessionSummaryRecord = z.object(sessionFields).meta({ id: 'AnalysisSessionSummary' });

export const analysisSessionRecord = z
  .object({
    ...sessionFields,
    actionsApplied: z.array(plannerActionRecord),
    confidence: z.enum(CONFIDENCE_LEVELS).nullable().meta({ description: 'low, medium or high; null when not given' }),
    model: z.string().nullable(),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    tokensEstimated: z
      .literal(true)
      .optional()
      .meta({
        description:
          'Present (true) when an answer of the model carried no usage: its tokens are estimated from the text ' +
          'sent and received (a token per 3 bytes) and charged as such',
      }),
  })
  .meta({ id: 'AnalysisSession' });

export const analysisSessionsPage = z
  .object({
    sessions: z.array(analysisSessionSummaryRecord).meta({ description: 'Newest first' }),
    total: z.number().int(),
    hasMore: z.boolean(),
  })
  .meta({ id: 'AnalysisSessionsPage' });

export type AnalysisSessionSummaryRecord = z.infer<typeof analysisSessionSummaryRecord>;
export type AnalysisSessionRecord = z.infer<typeof analysisSessionRecord>;

const signingKeyGraceMinutes = z
  .number()
  .int()
  .min(0)
  .max(SIGNING_KEY_GRACE_MAX_MINUTES)
  .meta({
    description:
      'After a signing key rotation, the previous key keeps signing beside the new one for this many minutes ' +
      `(X-Service-Signature: "sha256=<new> sha256=<old>"). 0 (default): the old key is invalid at once. Max ${SIGNING_KEY_GRACE_MAX_MINUTES} (7 days)`,
  });

/** An endpoint is "failing" (notification endpoint.failing) after this many consecutive failures. */
const notifyFailureThreshold = failureCountSetting(
  'Consecutive failures after which an endpoint is failing: endpoint.failing is sent once, endpoint.recovered on ' +
    'its next success (default 3)',
);

/** Settings > AI Features (part of the account record). */
export const aiSettingsRecord = z
  .object({
    aiSchedulingEnabled: z.boolean().meta({ description: 'Settings > AI Features > Enable AI Scheduling' }),
    aiShadowMode: z
      .boolean()
      .meta({ description: 'The planner records its proposals in analysis sessions without applying them' }),
    aiRules: z.boolean().meta({
      description:
        'The planner may write response rules of its own (propose_rules): kept apart from the endpoint rules, ' +
        'evaluated after them, clamped by the governor, lapsing within 7 days. Default false',
    }),
    signingKeyGraceMinutes,
    notifyFailureThreshold,
    autoPauseAfterFailures,
    hostLimits: z.array(hostLimitInput).meta({
      description:
        'Host budgets shared by every endpoint of the account calling the host, across executors ([] = none)',
    }),
  })
  .meta({
    id: 'AccountSettings',
    description:
      'AI features, the signing key rotation grace window, notification and auto-pause thresholds, host budgets',
  });

/** The planner's token budget this period (part of the account record). */
export const aiBudgetRecord = z
  .object({
    tokensUsed: z.number().int(),
    tokensLimit: z.number().int().meta({ description: "The tier's aiTokensPerMonth, or the account's override" }),
    periodStartedAt: isoTime,
    periodEndsAt: isoTime.meta({ description: 'The budget resets then (00:00 UTC on the 1st of the month)' }),
    exhausted: z.boolean().meta({
      description: 'The planner stops calling the model for this account until periodEndsAt (sessions say so: skipped)',
    }),
  })
  .meta({ id: 'AiBudget', description: 'Model tokens the planner may use per calendar month (UTC)' });

/** The planner's pause of model calls (the same for every account of an installation). */
export const aiPlannerRecord = z
  .object({
    pausedUntil: isoTime.nullable().meta({
      description:
        'The planner stopped calling its model until then: the model failed too often in a row (or a 429 asked ' +
        'for a longer wait than an analysis can make). Runs are not analysed meanwhile and schedules follow ' +
        'their baselines; null: the planner calls its model',
    }),
    pauseReason: z.string().nullable().meta({ description: 'Why, e.g. "5 model calls failed in a row (last: …)"' }),
  })
  .meta({ id: 'AiPlannerStatus', description: "The planner's model calls: paused during a model outage" });

export function toAiBudgetRecord(budget: AiBudgetState): z.output<typeof aiBudgetRecord> {
  return {
    tokensUsed: budget.tokensUsed,
    tokensLimit: budget.tokensLimit,
    periodStartedAt: budget.periodStartedAt.toISOString(),
    periodEndsAt: budget.periodEndsAt.toISOString(),
    exhausted: budget.exhausted,
  };
}

export const accountSettingsInput = z
  .strictObject({
    aiSchedulingEnabled: z.boolean().optional().meta({ description: 'Enable AI Scheduling' }),
    aiShadowMode: z.boolean().optional().meta({ description: 'Record planner proposals without applying them' }),
    aiRules: z.boolean().optional().meta({ description: 'Let the planner write response rules of its own' }),
    signingKeyGraceMinutes: signingKeyGraceMinutes.optional(),
    notifyFailureThreshold: notifyFailureThreshold.optional(),
    autoPauseAfterFailures: autoPauseAfterFailures.optional(),
    hostLimits: hostLimitsSetting.optional(),
  })
  .refine((input) => Object.values(input).some((value) => value !== undefined), {
    message:
      'send aiSchedulingEnabled, aiShadowMode, aiRules, signingKeyGraceMinutes, notifyFailureThreshold, autoPauseAfterFailures and/or hostLimits',
  })
  .meta({ id: 'AccountSettingsInput' });
export type AccountSettingsInput = z.infer<typeof accountSettingsInput>;
