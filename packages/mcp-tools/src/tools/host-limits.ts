/**
 * Host budgets: the account's hostLimits (PATCH /api/account/settings), one budget per target host
 * shared by every endpoint of the account calling it, across executors.
 */
import { unwrap } from '@kairos/client';
import { hostLimitsSetting } from '@kairos/core';
import { z } from 'zod';
import { IDEMPOTENT_CHANGE, defineTool } from '../tool.js';

export const hostLimitTools = [
  defineTool({
    name: 'setHostLimits',
    title: "Set the account's host budgets",
    description:
      'Replaces the host budgets (admin role): hostLimits is a list (at most 100; [] or null = none) of ' +
      '{ host, maxPerSecond?, maxConcurrent? } with at least one of the two limits. host is a lowercase host ' +
      'name, optionally with a port (without one it holds for every port). Every endpoint of the account ' +
      'calling the host shares the budget, across executors; a run held by it starts late (waitedForHostMs on ' +
      'the run), never dropped; a 429 with Retry-After from the host holds the whole host.',
    input: z.strictObject({ hostLimits: hostLimitsSetting }),
    annotations: IDEMPOTENT_CHANGE,
    run: async (api, body) => (await unwrap(api.PATCH('/api/account/settings', { body }))).settings,
    summarize: (settings) =>
      settings.hostLimits.length === 0
        ? 'No host budgets: calls to every host go as planned.'
        : `Host budgets: ${settings.hostLimits
            .map(
              (limit) =>
                `${limit.host} (${[
                  limit.maxPerSecond === undefined ? null : `${limit.maxPerSecond}/s`,
                  limit.maxConcurrent === undefined ? null : `${limit.maxConcurrent} at once`,
                ]
                  .filter(Boolean)
                  .join(', ')})`,
            )
            .join('; ')}.`,
  }),
];
