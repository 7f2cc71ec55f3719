/**
 * How long runs are kept, by tier (days). An account's quotaOverrides.runRetentionDays wins.
 * Analysis sessions follow the same limit.
 */
export const RUN_RETENTION_DAYS = { free: 7, pro: 30, enterprise: 90 } as const;

export function runRetentionDays(tier: keyof typeof RUN_RETENTION_DAYS, overrides: unknown): number {
  const override = (overrides as { runRetentionDays?: unknown } | null)?.runRetentionDays;
  return typeof override === 'number' && Number.isInteger(override) && override > 0
    ? override
    : RUN_RETENTION_DAYS[tier];
}
