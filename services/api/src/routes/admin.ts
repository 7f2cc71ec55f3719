/**
 * Operator API (role operator; others get 403 FORBIDDEN): every account with its limits and usage,
 * and changes of tier, quota overrides and disabled state. The CLI offers the same changes.
 */
import { AppError, TIERS, pagingQuery, quotaOverridesInput, tierLimits } from '@kairos/core';
import { getAccountWithUsers, listAccounts, updateAccount, type AccountWithUsers } from '@kairos/db/system';
import { z } from 'zod';
import { audit } from '../audit.js';
import { requireOperator } from '../auth/operator.js';
import type { RouteRegistry } from '../http/route.js';
import { tierLimitsRecord, usageOf, usageRecord } from './account.js';
import { errorResponses, isoTime, pageHeaderDocs, pageHeaders } from './common.js';
import type { ApiDeps } from './deps.js';

const adminAccountRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    tier: z.enum(TIERS),
    disabledAt: isoTime.nullable(),
    quotaOverrides: z.record(z.string(), z.unknown()).nullable(),
    limits: tierLimitsRecord,
    usage: usageRecord,
    users: z.array(
      z.object({
        id: z.string(),
        email: z.string(),
        emailVerified: z.boolean().meta({
          description:
            'The address is proved (an identity provider verified it, or an operator created the user); ' +
            'a verified sign-in with it never links to an unverified user',
        }),
        role: z.enum(['member', 'operator']),
      }),
    ),
    createdAt: isoTime,
  })
  .meta({ id: 'AdminAccount' });

const quotaOverridesPatch = z
  .object(
    Object.fromEntries(
      Object.entries(quotaOverridesInput.shape).map(([key, schema]) => [key, schema.unwrap().nullable().optional()]),
    ) as { [K in keyof typeof quotaOverridesInput.shape]: z.ZodOptional<z.ZodNullable<z.ZodNumber>> },
  )
  .strict()
  .meta({ id: 'QuotaOverridesPatch', description: 'Keys to set; null removes an override (the tier value applies)' });

const updateAccountInput = z
  .strictObject({
    tier: z.enum(TIERS).optional(),
    disabled: z.boolean().optional().meta({ description: 'true refuses every credential of the account (403)' }),
    quotaOverrides: quotaOverridesPatch.optional(),
  })
  .meta({ id: 'UpdateAccountInput' });

export function registerAdminRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const tags = ['Admin'];
  const present = async (account: AccountWithUsers) => ({
    id: account.id,
    name: account.name,
    tier: account.tier,
    disabledAt: account.disabledAt?.toISOString() ?? null,
    quotaOverrides: (account.quotaOverrides as Record<string, unknown> | null) ?? null,
    limits: tierLimits(account.tier, account.quotaOverrides),
    usage: await usageOf(deps.db, account, deps.now()),
    users: account.users,
    createdAt: account.createdAt.toISOString(),
  });

  routes.add(
    {
      method: 'get',
      path: '/api/admin/accounts',
      operationId: 'adminListAccounts',
      summary: 'List accounts with limits and usage (operators)',
      tags,
      query: pagingQuery(50),
      responses: {
        200: {
          description: 'A page of accounts, oldest first',
          schema: z.array(adminAccountRecord),
          headers: pageHeaderDocs('Accounts in total'),
        },
        ...errorResponses(400),
      },
    },
    async ({ auth, query, req }) => {
      await requireOperator(deps.db, auth);
      const { accounts, total } = await listAccounts(deps.db, query);
      return {
        body: await Promise.all(accounts.map(present)),
        headers: pageHeaders(req, { ...query, total }, deps.config.KAIROS_PUBLIC_URL),
      };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/admin/accounts/:accountId',
      operationId: 'adminGetAccount',
      summary: 'Get an account with limits and usage (operators)',
      tags,
      responses: { 200: { description: 'The account', schema: adminAccountRecord }, ...errorResponses(404) },
    },
    async ({ auth, params }) => {
      await requireOperator(deps.db, auth);
      const account = await getAccountWithUsers(deps.db, params.accountId!);
      if (!account) throw new AppError('NOT_FOUND', 'account not found', { id: params.accountId });
      return { body: await present(account) };
    },
  );

  routes.add(
    {
      method: 'patch',
      path: '/api/admin/accounts/:accountId',
      operationId: 'adminUpdateAccount',
      summary: 'Change tier, quota overrides or disabled state (operators)',
      description:
        'quotaOverrides merges into the stored overrides (null removes a key). Takes effect at once in this ' +
        'api process and within 10 seconds in others. Disabling refuses all credentials of the account with 403.',
      tags,
      body: updateAccountInput,
      responses: {
        200: { description: 'The account after the change', schema: adminAccountRecord },
        ...errorResponses(400, 404),
      },
    },
    async ({ auth, params, body }) => {
      const operator = await requireOperator(deps.db, auth);
      const account = await updateAccount(deps.db, params.accountId!, body, deps.now());
      if (!account) throw new AppError('NOT_FOUND', 'account not found', { id: params.accountId });
      deps.accountLimits.evict(account.id);
      if (body.disabled) {
        deps.apiKeys.evictAccount(account.id);
        deps.accessTokens.evictAccount(account.id);
      }
      await audit(
        deps,
        { ...auth, accountId: account.id, actor: { type: 'operator', id: operator.id } },
        'account.updated',
        { type: 'account', id: account.id },
        { ...body },
      );
      return { body: await present(account) };
    },
  );
}
