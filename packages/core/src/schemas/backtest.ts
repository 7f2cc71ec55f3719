/**
 * POST /api/endpoints/{id}/backtest: proposed response rules replayed over the endpoint's recorded
 * runs (packages/core/src/rules/backtest.ts), without changing anything. The record mirrors
 * BacktestResult field for field.
 */
import { z } from 'zod';
import { RESPONSE_RULE_LIMITS, responseRules, successWhenInput } from './response-rules.js';

export const backtestInput = z
  .strictObject({
    successWhen: successWhenInput
      .nullable()
      .optional()
      .meta({ description: "The proposed successWhen (absent: the endpoint's own; null: none)" }),
    rules: responseRules
      .nullable()
      .optional()
      .meta({ description: "The proposed rules (absent: the endpoint's own; null: none)" }),
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(RESPONSE_RULE_LIMITS.backtestMaxRuns, `must be at most ${RESPONSE_RULE_LIMITS.backtestMaxRuns}`)
      .optional()
      .meta({
        description: `How many of the latest scheduled runs to replay (default ${RESPONSE_RULE_LIMITS.backtestDefaultRuns}, at most ${RESPONSE_RULE_LIMITS.backtestMaxRuns})`,
      }),
  })
  .meta({ id: 'BacktestInput' });
export type BacktestInput = z.infer<typeof backtestInput>;

const isoTime = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });
const runStatus = z.enum(['success', 'failed']);

const figures = z.object({
  successCount: z.number().int(),
  failureCount: z.number().int(),
  callsPerDay: z
    .number()
    .nullable()
    .meta({ description: 'Calls a day over the window; null with fewer than two runs' }),
});

const backtestRun = z.object({
  runId: z.string(),
  startedAt: isoTime,
  statusCode: z.number().int().nullable(),
  recordedStatus: runStatus,
  status: runStatus.nullable().meta({
    description: 'As replayed; null when a pause a rule set earlier in the replay would have stopped the run',
  }),
  errorKind: z.string().nullable(),
  errorMessage: z.string().nullable(),
  recordedRulesMatched: z.array(z.string()),
  rulesMatched: z.array(z.string()).meta({ description: 'The proposed rules this run matches, in order' }),
});

export const backtestResultRecord = z
  .object({
    runsReplayed: z.number().int(),
    from: isoTime.nullable().meta({ description: 'Start of the oldest run replayed' }),
    to: isoTime.nullable().meta({ description: 'Start of the newest run replayed' }),
    recorded: figures.meta({ description: 'The runs as recorded' }),
    replayed: figures.meta({ description: 'The runs as the proposed fields decide them' }),
    statusChanges: z
      .array(
        backtestRun.pick({
          runId: true,
          startedAt: true,
          recordedStatus: true,
          status: true,
          errorKind: true,
          errorMessage: true,
        }),
      )
      .meta({ description: 'Runs whose status the proposed successWhen changes' }),
    runs: z.array(backtestRun).meta({ description: 'Every run replayed, oldest first' }),
    schedule: z
      .array(
        z.object({
          from: isoTime,
          to: isoTime,
          source: z.enum(['rule', 'paused', 'baseline']),
          rule: z.string().nullable(),
          intervalMs: z.number().nullable().meta({ description: 'null while paused and on a cron baseline' }),
          backoffMultiplier: z.number().int(),
        }),
      )
      .meta({
        description:
          'The schedule the proposed rules would have applied between the runs (a rule interval, a rule pause, or the ' +
          'baseline with the replayed backoff), equal consecutive parts merged. AI hints are not replayed',
      }),
    endpointRuns: z
      .array(z.object({ endpointId: z.string(), runs: z.number().int() }))
      .meta({ description: 'Runs of other endpoints the rules would have started (runEndpoint)' }),
    analysesRequested: z
      .number()
      .int()
      .meta({ description: 'Runs after which a rule would have asked for an analysis' }),
  })
  .meta({
    id: 'BacktestResult',
    description:
      "The endpoint's recorded scheduled runs replayed at their recorded times through the proposed fields, with the " +
      'evaluator the executor runs; nothing is changed',
  });
