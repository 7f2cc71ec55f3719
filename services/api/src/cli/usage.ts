/**
 * The operator commands' usage: printed by the operator CLI (kairos.ts) and, under its own heading,
 * by `pnpm kairos --help` (scripts/kairos.ts) after the user commands.
 */
import { quotaOverridesInput } from '@kairos/core';

/** Keys of accounts.quotaOverrides (core/tiers.ts, runRetentionDays included). */
export const QUOTA_OPTIONS = Object.keys(quotaOverridesInput.shape) as (keyof typeof quotaOverridesInput.shape)[];

/** The first word of every operator command: how `pnpm kairos` tells them from the user commands. */
export const OPERATOR_COMMANDS = ['accounts', 'keys', 'users', 'login-link', 'master-key'] as const;

export const OPERATOR_USAGE = `  kairos accounts create --email <email> [--name <name>] [--tier free|pro|enterprise] [--operator] [--json]
  kairos login-link [--email <email>] [--json]
  kairos keys create --account <accountId> --name <name> [--json]
  kairos keys revoke <keyId> [--json]
  kairos users set-role --email <email> --role operator|member [--json]
  kairos accounts set-tier <accountId> --tier free|pro|enterprise [--json]
  kairos accounts set-quota <accountId> --<quota> <n|default> ... [--json]
      quotas: ${QUOTA_OPTIONS.join(', ')}
  kairos accounts disable <accountId> [--json]
  kairos accounts enable <accountId> [--json]
  kairos master-key rotate [--batch-size <n>] [--json]`;
