/**
 * The caller's account: tier, effective limits, usage this month, and its audit log.
 *
 * Runs per month is reported here and in /api/admin/accounts and enforced by the executors
 * (services/executor/src/run-quota.ts): past it, scheduled slots are skipped until the month turns or
 * an operator raises the quota.
 */
import {
  AppError,
  QUOTA_KEYS,
  accountSettingsInput,
  aiBudgetPeriod,
  aiBudgetRecord,
  aiPlannerRecord,
  aiSettingsRecord,
  describeAiBudget,
  pagingQuery,
  timestamp,
  toAiBudgetRecord,
  type HostLimit,
  type TierLimits,
} from '@kairos/core';
import {
  getAccount,
  getAccountUsage,
  listAuditEvents,
  updateAccountAiSettings,
  type Account,
  type AuditEvent,
  type Database,
} from '@kairos/db';
import { readPlannerModelPause } from '@kairos/queue';
import { z } from 'zod';
import { audit } from '../audit.js';
import type { RouteRegistry } from '../http/route.js';
import { errorResponses, isoTime, pageHeaderDocs, pageHeaders } from './common.js';
import type { ApiDeps } from './deps.js';

export const tierLimitsRecord = z
  .object(Object.fromEntries(QUOTA_KEYS.map((key) => [key, z.number().int()])) as Record<keyof TierLimits, z.ZodNumber>)
  .meta({ id: 'TierLimits', description: 'Effective limits: the tier, with quotaOverrides applied' });

export const usageRecord = z
  .object({
    jobs: z.number().int().meta({ description: 'Jobs not archived (quota maxJobs)' }),
    endpoints: z.number().int().meta({ description: 'Endpoints not archived (quota maxEndpoints)' }),
    runsThisMonth: z.number().int().meta({ description: 'Runs started this calendar month, UTC (runsPerMonth)' }),
    aiTokensThisMonth: z.number().int().meta({ description: 'AI tokens this month (aiTokensPerMonth)' }),
    periodStart: isoTime,
    periodEnd: isoTime,
  })
  .meta({ id: 'AccountUsage' });

const accountRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    tier: z.enum(['free', 'pro', 'enterprise']),
    limits: tierLimitsRecord,
    usage: usageRecord,
    settings: aiSettingsRecord,
    aiBudget: aiBudgetRecord,
    aiPlanner: aiPlannerRecord,
    createdAt: isoTime,
  })
  .meta({ id: 'Account' });

const AUDIT_ACTOR_TYPES = ['user', 'api_key', 'access_token', 'planner', 'operator', 'system'] as const;
const auditEventRecord = z
  .object({
    id: z.string(),
    action: z.string().meta({ description: '<resource>.<verb>, e.g. api_key.created, endpoint.paused' }),
    actorType: z.enum(AUDIT_ACTOR_TYPES),
    actorId: z.string().nullable(),
    targetType: z.string().nullable(),
    targetId: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).nullable(),
    createdAt: isoTime,
  })
  .meta({ id: 'AuditEvent' });

const listAuditEventsQuery = pagingQuery(50)
  .extend({
    action: z.string().max(100).optional().meta({ description: 'Only this action' }),
    actorType: z.enum(AUDIT_ACTOR_TYPES).optional().meta({ description: 'Only events by this kind of actor' }),
    actorId: z
      .string()
      .max(100)
      .optional()
      .meta({ description: 'Only events by this actor (a user, key or token id)' }),
    targetType: z
      .string()
      .max(50)
      .optional()
      .meta({ description: 'Only events on this kind of resource (job, endpoint, api_key, member…)' }),
    since: timestamp.optional().meta({ description: 'Only events at or after this time' }),
    until: timestamp.optional().meta({ description: 'Only events before this time' }),
  })
  .refine((query) => !query.since || !query.until || Date.parse(query.since) < Date.parse(query.until), {
    message: 'since must be before until',
    path: ['until'],
  });

export async function usageOf(db: Database, account: Account, now: Date): Promise<z.output<typeof usageRecord>> {
  const period = aiBudgetPeriod(now);
  const usage = await getAccountUsage(db, account.id, period.startedAt);
  const aiCurrent = account.aiPeriodStartedAt.getTime() >= period.startedAt.getTime();
  return {
    jobs: usage.jobs,
    endpoints: usage.endpoints,
    runsThisMonth: usage.runs,
    aiTokensThisMonth: aiCurrent ? account.aiTokensUsed : 0,
    periodStart: period.startedAt.toISOString(),
    periodEnd: period.endsAt.toISOString(),
  };
}

function toAuditEventRecord(event: AuditEvent) {
  return {
    id: event.id,
    action: event.action,
    actorType: event.actorType as z.output<typeof auditEventRecord>['actorType'],
    actorId: event.actorId,
    targetType: event.targetType,
    targetId: event.targetId,
    details: (event.details as Record<string, unknown> | null) ?? null,
    createdAt: event.createdAt.toISOString(),
  };
}

/** The planner's pause of model calls, from Redis (unreadable: shown as not paused). */
async function plannerStatus(deps: ApiDeps, now: Date): Promise<z.output<typeof aiPlannerRecord>> {
  const pause = await readPlannerModelPause(deps.redis, deps.config.KAIROS_QUEUE_PREFIX, now).catch((error: Error) => {
    deps.logger.warn('pause of planner model calls not read', { error: error.message });
    return null;
  });
  return { pausedUntil: pause?.pausedUntil.toISOString() ?? null, pauseReason: pause?.reason ?? null };
}

async function toAccountRecord(deps: ApiDeps, account: Account): Promise<z.output<typeof accountRecord>> {
  const now = deps.now();
  return {
    id: account.id,
    name: account.name,
    tier: account.tier,
    limits: await deps.accountLimits.get(account.id),
    usage: await usageOf(deps.db, account, now),
    settings: {
      aiSchedulingEnabled: account.aiSchedulingEnabled,
      aiShadowMode: account.aiShadowMode,
      aiRules: account.aiRules,
      signingKeyGraceMinutes: account.signingKeyGraceMinutes,
      notifyFailureThreshold: account.notifyFailureThreshold,
      autoPauseAfterFailures: account.autoPauseAfterFailures,
      hostLimits: Array.isArray(account.hostLimits) ? (account.hostLimits as unknown as HostLimit[]) : [],
    },
    aiBudget: toAiBudgetRecord(describeAiBudget(account, now)),
    aiPlanner: await plannerStatus(deps, now),
    createdAt: account.createdAt.toISOString(),
  };
}

export function registerAccountRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  routes.add(
    {
      method: 'get',
      path: '/api/account',
      operationId: 'getAccount',
      summary: 'The account: tier, limits (quotas, rate limit) and usage this month',
      description:
        'Quotas refuse with 403 QUOTA_EXCEEDED { quota, limit, current }: maxJobs on job create, maxEndpoints on ' +
        'endpoint create, minIntervalMs on endpoint create/update and interval hints. runsPerMonth is enforced by ' +
        'the executors (scheduled slots past it are skipped until the month turns); aiTokensPerMonth is the planner budget.',
      tags: ['Account'],
      responses: { 200: { description: 'The account', schema: accountRecord }, ...errorResponses() },
    },
    async ({ auth }) => {
      const account = await getAccount(deps.db, auth.accountId);
      if (!account) throw new AppError('NOT_FOUND', 'account not found');
      return { body: await toAccountRecord(deps, account) };
    },
  );

  routes.add(
    {
      method: 'patch',
      path: '/api/account/settings',
      role: 'admin',
      operationId: 'updateAccountSettings',
      summary:
        'Change the account settings (AI Scheduling, shadow mode, signing key grace window, failure thresholds, host budgets)',
      description:
        'aiSchedulingEnabled false: the planner analyses none of the account’s endpoints (schedules run on ' +
        'their baselines; hints already set expire on their TTL). aiShadowMode true: the planner still ' +
        'analyses, and records its proposals in the sessions (marked shadow) without applying them. aiRules true: ' +
        'the planner is offered propose_rules and may write response rules of its own (kept apart from the ' +
        'endpoint rules, evaluated after them, lapsing within 7 days; default false). ' +
        'signingKeyGraceMinutes (0 to 10080, default 0): applies to the next rotation; after it, requests carry ' +
        'the new and the previous key’s signatures until the window ends (POST /api/signing-keys/revoke-previous ' +
        'ends it early). A window already running keeps its expiry. notifyFailureThreshold (1 to 1000, default 3): ' +
        'consecutive failures after which endpoint.failing is sent (once; endpoint.recovered on the next success). ' +
        'autoPauseAfterFailures (1 to 1000 or null, default null = never): the default of endpoints that set none. ' +
        'hostLimits (at most 100; null or [] = none): [{ host, maxPerSecond?, maxConcurrent? }], one budget per target ' +
        'host shared by every endpoint of the account calling it, across executors; a run held by it starts late ' +
        '(waitedForHostMs on the run), never dropped, and a 429 with Retry-After from the host holds the whole host.',
      tags: ['Account'],
      body: accountSettingsInput,
      responses: {
        200: { description: 'The account after the change', schema: accountRecord },
        ...errorResponses(400),
      },
    },
    async ({ auth, body }) => {
      const account = await updateAccountAiSettings(deps.db, auth.accountId, body);
      await audit(deps, auth, 'account.settings_updated', { type: 'account', id: account.id }, body);
      return { body: await toAccountRecord(deps, account) };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/audit-events',
      role: 'admin',
      operationId: 'listAuditEvents',
      summary: "The account's audit log, newest first",
      description:
        'Sign-ins, API key and device changes, signing key create/rotate, job and endpoint changes, ' +
        'pauses and hints (by users, keys, tokens, the planner and operators). Filters combine: action, ' +
        'actorType and actorId, targetType, and the time range since (included) to until (excluded).',
      tags: ['Account'],
      query: listAuditEventsQuery,
      responses: {
        200: {
          description: 'A page of events',
          schema: z.array(auditEventRecord),
          headers: pageHeaderDocs('Events matching the filter'),
        },
        ...errorResponses(400),
      },
    },
    async ({ auth, query, req }) => {
      const { events, total } = await listAuditEvents(deps.db, auth.accountId, query);
      return {
        body: events.map(toAuditEventRecord),
        headers: pageHeaders(req, { ...query, total }, deps.config.KAIROS_PUBLIC_URL),
      };
    },
  );
}
