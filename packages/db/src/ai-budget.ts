/**
 * The account's AI token budget as the planner spends it: every model call reserves its worst case
 * before it is made and is charged its real usage when it ends, in the account row.
 *
 * Bound: a call is made only if the account's count (tokens charged + reservations of calls in
 * flight) is below the limit when its reservation is taken, atomically (one conditional UPDATE: a
 * second reservation re-reads the row after the first commits). When a reservation is at least its
 * call's usage, the count of every call admitted before the last one is covered by what that last
 * one saw below the limit, so the account ends below limit + one call's tokens, however many
 * analyses run at once. Checked before each call against a count read when the analysis began and
 * charged when its session is saved instead, 4 parallel analyses spend 40,000 tokens of a 10,000
 * budget; reserved and charged per call, 10,000 (services/planner/test/misbehaving-model.test.ts).
 *
 * A reservation lives in aiTokensUsed itself, so a planner that dies mid-call leaves its account
 * charged the reservation (an overcharge of at most one call's worst case, never an undercount).
 * The budget period is the calendar month (core/planner/budget.ts): a count from an earlier month
 * restarts from these tokens.
 */
import type { Database } from './client.js';

/**
 * Reserves `tokens` for one model call: true when the account's count this period was below
 * `limit` (the call may go ahead), false when the budget is used up (or fully reserved).
 */
export async function reserveAiTokens(
  db: Database,
  accountId: string,
  tokens: number,
  limit: number,
  periodStartedAt: Date,
): Promise<boolean> {
  const { rowCount } = await db.pool.query(
    `UPDATE accounts
        SET "aiTokensUsed" = CASE WHEN "aiPeriodStartedAt" < $3 THEN $2 ELSE "aiTokensUsed" + $2 END,
            "aiPeriodStartedAt" = GREATEST("aiPeriodStartedAt", $3)
      WHERE id = $1::uuid AND (CASE WHEN "aiPeriodStartedAt" < $3 THEN 0 ELSE "aiTokensUsed" END) < $4`,
    [accountId, tokens, periodStartedAt, limit],
  );
  return rowCount === 1;
}

/**
 * Replaces a reservation made in the period starting `reservedIn` by the call's real usage. A
 * reservation from a period that has ended since is gone with it: only the usage is added.
 */
export async function chargeAiTokens(
  db: Database,
  accountId: string,
  charge: { reserved: number; used: number; reservedIn: Date; periodStartedAt: Date },
): Promise<void> {
  await db.pool.query(
    `UPDATE accounts
        SET "aiTokensUsed" = CASE WHEN "aiPeriodStartedAt" < $4 THEN $3
                                  WHEN $4::timestamptz > $5::timestamptz THEN "aiTokensUsed" + $3
                                  ELSE GREATEST(0, "aiTokensUsed" - $2 + $3) END,
            "aiPeriodStartedAt" = GREATEST("aiPeriodStartedAt", $4)
      WHERE id = $1::uuid`,
    [accountId, charge.reserved, charge.used, charge.periodStartedAt, charge.reservedIn],
  );
}
