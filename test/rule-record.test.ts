/**
 * What the record statement does with a run's response rules (packages/db/src/executions.ts), on the
 * real PostgreSQL: a rule's interval hint set, renewed (its start kept) and ended; the latest decision
 * wins against a planner's hint, and a rule never ends a hint it did not set; a pause rule never
 * shortens a longer pause; a batch mixing runs with and without rules; and the chain statement runs
 * an endpoint once per chain, only within the job.
 */
import { newIdAt, type RuleOutcome } from '@kairos/core';
import { createDatabase, type Database } from '@kairos/db';
import { chainRuns, recordScheduledRuns, type RunOutcome } from '@kairos/db/system';
import { createTestDatabase, type TestDatabase } from './db.js';
import { runOutcome, seedEndpoint } from './runs-fixtures.js';

let database: TestDatabase;
let db: Database;
const query = (sql: string, values?: unknown[]) => db.pool.query(sql, values);

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDatabase({ url: database.url, poolMax: 2 });
});
afterAll(async () => {
  await db.close();
  await database.drop();
});

const T0 = Date.parse('2026-11-30T10:00:00.000Z');
const at = (offsetMs: number) => new Date(T0 + offsetMs);

const outcome = (fields: Partial<RuleOutcome> = {}): RuleOutcome => ({
  matched: [],
  interval: null,
  pause: null,
  runEndpoints: [],
  analyse: false,
  ...fields,
});

function ruled(endpoint: { accountId: string; endpointId: string }, offsetMs: number, rules?: RuleOutcome): RunOutcome {
  const run = runOutcome(endpoint, at(offsetMs));
  return rules ? { ...run, rulesMatched: rules.matched, ruleOutcome: rules } : run;
}

const hintOf = async (endpointId: string) =>
  (
    await query(
      `SELECT "hintIntervalMs", "hintIntervalExpiresAt", "hintIntervalReason", "hintIntervalOrigin", "hintIntervalSetAt",
              "pausedUntil", "pauseReason", "pauseOrigin"
         FROM endpoints WHERE id = $1`,
      [endpointId],
    )
  ).rows[0];

const high = (offsetMs: number) =>
  outcome({
    matched: ['backlog high'],
    interval: { rule: 'backlog high', intervalMs: 60_000, expiresAtMs: T0 + offsetMs + 5 + 120_000 },
  });

it("sets a rule's interval hint, renews it keeping its start, and ends it at the first run without one", async () => {
  const endpoint = await seedEndpoint(query, 'enterprise');
  await recordScheduledRuns(db, [ruled(endpoint, 0, high(0))]);
  expect(await hintOf(endpoint.endpointId)).toMatchObject({
    hintIntervalMs: 60_000,
    hintIntervalExpiresAt: at(120_005),
    hintIntervalReason: 'backlog high',
    hintIntervalOrigin: 'rule',
    hintIntervalSetAt: at(5),
  });
  await recordScheduledRuns(db, [ruled(endpoint, 60_000, high(60_000))]);
  expect(await hintOf(endpoint.endpointId)).toMatchObject({
    hintIntervalExpiresAt: at(180_005),
    hintIntervalSetAt: at(5),
  });
  const [stored] = (
    await query(`SELECT "rulesMatched" FROM runs WHERE "endpointId" = $1 LIMIT 1`, [endpoint.endpointId])
  ).rows;
  expect(stored.rulesMatched).toEqual(['backlog high']);
  await recordScheduledRuns(db, [ruled(endpoint, 120_000, outcome())]);
  expect(await hintOf(endpoint.endpointId)).toMatchObject({
    hintIntervalMs: null,
    hintIntervalOrigin: null,
    hintIntervalSetAt: null,
  });
});

it("replaces a planner's interval hint with a matching rule's, and never ends a hint it did not set", async () => {
  const endpoint = await seedEndpoint(query, 'enterprise');
  const plannerHint = () =>
    query(
      `UPDATE endpoints SET "hintIntervalMs" = 5000, "hintIntervalExpiresAt" = $2, "hintIntervalReason" = 'surge',
                            "hintIntervalOrigin" = 'planner', "hintIntervalSetAt" = $3 WHERE id = $1`,
      [endpoint.endpointId, at(3_600_000), at(0)],
    );
  await plannerHint();
  await recordScheduledRuns(db, [ruled(endpoint, 1000, outcome())]);
  expect(await hintOf(endpoint.endpointId)).toMatchObject({ hintIntervalMs: 5000, hintIntervalOrigin: 'planner' });
  // Runs of an endpoint without rules leave every hint alone.
  await recordScheduledRuns(db, [ruled(endpoint, 2000)]);
  expect(await hintOf(endpoint.endpointId)).toMatchObject({ hintIntervalOrigin: 'planner' });
  await recordScheduledRuns(db, [ruled(endpoint, 3000, high(3000))]);
  expect(await hintOf(endpoint.endpointId)).toMatchObject({
    hintIntervalMs: 60_000,
    hintIntervalOrigin: 'rule',
    hintIntervalSetAt: at(3005),
  });
});

it('pauses with the rule name as reason, but never shortens a longer pause', async () => {
  const endpoint = await seedEndpoint(query, 'enterprise');
  const pause = (offsetMs: number, untilMs: number) =>
    outcome({ matched: ['quiet'], pause: { rule: 'quiet', untilMs } });
  await recordScheduledRuns(db, [ruled(endpoint, 0, pause(0, T0 + 600_000))]);
  expect(await hintOf(endpoint.endpointId)).toMatchObject({
    pausedUntil: at(600_000),
    pauseReason: 'quiet',
    pauseOrigin: 'rule',
  });
  await query(`UPDATE endpoints SET "pausedUntil" = $2, "pauseReason" = 'user', "pauseOrigin" = 'user' WHERE id = $1`, [
    endpoint.endpointId,
    at(3_600_000),
  ]);
  await recordScheduledRuns(db, [ruled(endpoint, 1000, pause(1000, T0 + 700_000))]);
  expect(await hintOf(endpoint.endpointId)).toMatchObject({ pausedUntil: at(3_600_000), pauseOrigin: 'user' });
});

it('records a batch mixing endpoints with and without rules, each as its own', async () => {
  const plain = await seedEndpoint(query, 'enterprise');
  const withRules = await seedEndpoint(query, 'enterprise');
  const { ids } = await recordScheduledRuns(db, [ruled(plain, 0), ruled(withRules, 0, high(0))]);
  expect(ids.size).toBe(2);
  expect(await hintOf(plain.endpointId)).toMatchObject({ hintIntervalMs: null });
  expect(await hintOf(withRules.endpointId)).toMatchObject({ hintIntervalMs: 60_000 });
  const rows = (
    await query(`SELECT "endpointId", "rulesMatched" FROM runs WHERE "endpointId" = ANY($1::uuid[])`, [
      [plain.endpointId, withRules.endpointId],
    ])
  ).rows;
  expect(Object.fromEntries(rows.map((row) => [row.endpointId, row.rulesMatched]))).toEqual({
    [plain.endpointId]: null,
    [withRules.endpointId]: ['backlog high'],
  });
});

describe('chainRuns', () => {
  /** A job with endpoints a, b, c (and one endpoint in another job of the same account). */
  async function job() {
    const a = await seedEndpoint(query, 'enterprise');
    const { jobId } = (await query(`SELECT "jobId" FROM endpoints WHERE id = $1`, [a.endpointId])).rows[0];
    const sibling = async () => {
      const id = newIdAt(new Date());
      await query(
        `INSERT INTO endpoints (id, "accountId", "jobId", name, url, method, "updatedAt")
         VALUES ($1, $2, $3, 'x', 'http://127.0.0.1:9/', 'GET', now())`,
        [id, a.accountId, jobId],
      );
      return { accountId: a.accountId, endpointId: id };
    };
    const b = await sibling();
    const c = await sibling();
    const otherJob = newIdAt(new Date());
    await query(`INSERT INTO jobs (id, "accountId", name, "updatedAt") VALUES ($1, $2, 'other', now())`, [
      otherJob,
      a.accountId,
    ]);
    const elsewhere = newIdAt(new Date());
    await query(
      `INSERT INTO endpoints (id, "accountId", "jobId", name, url, method, "updatedAt")
       VALUES ($1, $2, $3, 'y', 'http://127.0.0.1:9/', 'GET', now())`,
      [elsewhere, a.accountId, otherJob],
    );
    return { a, b, c, elsewhere };
  }
  const asks = (...targets: string[]) =>
    outcome({ matched: ['next'], runEndpoints: targets.map((endpointId) => ({ endpointId, rule: 'next' })) });
  const oneShotOf = async (endpointId: string) =>
    (
      await query(
        `SELECT "hintOneShotAt", "hintOneShotOrigin", "hintOneShotReason", "ruleChainId", "scheduleDirtyAt"
           FROM endpoints WHERE id = $1`,
        [endpointId],
      )
    ).rows[0];

  it("asks siblings of the job for one run now, never another job's endpoint", async () => {
    const { a, b, elsewhere } = await job();
    const run = ruled(a, 0, asks(b.endpointId, elsewhere));
    await recordScheduledRuns(db, [run]);
    expect(await chainRuns(db, [run])).toEqual([b.endpointId]);
    expect(await oneShotOf(b.endpointId)).toMatchObject({
      hintOneShotAt: run.completedAt,
      hintOneShotOrigin: 'rule',
      hintOneShotReason: `rule 'next' of endpoint "e"`,
      ruleChainId: run.id,
      scheduleDirtyAt: run.completedAt,
    });
    expect(await oneShotOf(elsewhere)).toMatchObject({ hintOneShotAt: null, ruleChainId: null });
  });

  it('runs an endpoint once per chain, through a diamond and a loop', async () => {
    const { a, b, c } = await job();
    // a's run starts the chain and asks b and c; c's chained run (source rule) asks b again: dropped.
    const first = ruled(a, 0, asks(b.endpointId, c.endpointId));
    await recordScheduledRuns(db, [first]);
    expect((await chainRuns(db, [first])).sort()).toEqual([b.endpointId, c.endpointId].sort());
    const fromC = { ...ruled(c, 1000, asks(b.endpointId, a.endpointId)), source: 'rule' };
    await recordScheduledRuns(db, [fromC]);
    // b already ran for this chain; a started it.
    expect(await chainRuns(db, [fromC])).toEqual([]);
    // The next chain (a's next own run) asks b again.
    const second = ruled(a, 60_000, asks(b.endpointId));
    await recordScheduledRuns(db, [second]);
    expect(await chainRuns(db, [second])).toEqual([b.endpointId]);
    expect(await oneShotOf(b.endpointId)).toMatchObject({ ruleChainId: second.id });
  });
});
