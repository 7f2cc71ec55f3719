/**
 * The account's AI token budget as model calls spend it (packages/db/src/ai-budget.ts): a call
 * reserves its worst case while the count is below the limit, atomically among racing calls, and
 * is charged its real usage; a count from an earlier month restarts.
 */
import { newId } from '@kairos/core';
import { chargeAiTokens, reserveAiTokens, type Database } from '@kairos/db';
import { useTestDatabase } from '../../../test/db.js';

let db: Database;
useTestDatabase(24, (opened) => (db = opened));

const NOVEMBER = new Date(Date.UTC(2026, 10, 1));
const DECEMBER = new Date(Date.UTC(2026, 11, 1));

async function newAccount(aiTokensUsed: number, aiPeriodStartedAt: Date): Promise<string> {
  const id = newId();
  await db.prisma.account.create({ data: { id, name: 'budget', aiTokensUsed, aiPeriodStartedAt } });
  return id;
}
const usedOf = async (id: string) => (await db.prisma.account.findUniqueOrThrow({ where: { id } })).aiTokensUsed;

it('reserves while the count is below the limit, and charges the real usage', async () => {
  const id = await newAccount(9000, new Date(Date.UTC(2026, 10, 3)));
  expect(await reserveAiTokens(db, id, 5000, 10_000, NOVEMBER)).toBe(true);
  expect(await usedOf(id)).toBe(14_000);
  // Fully reserved: the next call waits for the budget (it is not made).
  expect(await reserveAiTokens(db, id, 10, 10_000, NOVEMBER)).toBe(false);
  await chargeAiTokens(db, id, { reserved: 5000, used: 1500, reservedIn: NOVEMBER, periodStartedAt: NOVEMBER });
  expect(await usedOf(id)).toBe(10_500);
  expect(await reserveAiTokens(db, id, 10, 10_000, NOVEMBER)).toBe(false);
});

it('admits racing reservations one at a time: never more than the count allows', async () => {
  const id = await newAccount(0, NOVEMBER);
  const admitted = await Promise.all(Array.from({ length: 20 }, () => reserveAiTokens(db, id, 1000, 5000, NOVEMBER)));
  expect(admitted.filter(Boolean)).toHaveLength(5);
  expect(await usedOf(id)).toBe(5000);
});

it('restarts a count from an earlier month, and drops a reservation whose month has ended', async () => {
  const id = await newAccount(999_999, new Date(Date.UTC(2026, 9, 20)));
  expect(await reserveAiTokens(db, id, 3000, 10_000, NOVEMBER)).toBe(true);
  expect(await usedOf(id)).toBe(3000);
  // The call ends in December: its November reservation went with November.
  await chargeAiTokens(db, id, { reserved: 3000, used: 1200, reservedIn: NOVEMBER, periodStartedAt: DECEMBER });
  expect(await usedOf(id)).toBe(1200);
  const row = await db.prisma.account.findUniqueOrThrow({ where: { id } });
  expect(row.aiPeriodStartedAt.toISOString()).toBe(DECEMBER.toISOString());
  // Another call reserved in November ends after the count restarted in December: only its usage counts.
  await chargeAiTokens(db, id, { reserved: 3000, used: 800, reservedIn: NOVEMBER, periodStartedAt: DECEMBER });
  expect(await usedOf(id)).toBe(2000);
});
