import { newIdAt } from '@kairos/core';
import { createLogger } from '@kairos/runtime';
import { createApiHarness, endpointInput, type ApiHarness } from '../../../test/api.js';
import { RetentionSweeper } from '../src/retention.js';

let harness: ApiHarness;

beforeAll(async () => {
  harness = await createApiHarness();
});
afterAll(() => harness.close());

const DAY_MS = 86_400_000;

async function seedRuns(apiKey: string, ages: number[]): Promise<string> {
  const api = harness.client(apiKey);
  const job = (await api.post('/api/jobs', { name: 'retention' })).body;
  const endpoint = (await api.post(`/api/jobs/${job.id}/endpoints`, endpointInput())).body;
  const row = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
  await harness.db.prisma.run.createMany({
    data: ages.map((ageDays) => {
      const at = new Date(Date.now() - ageDays * DAY_MS);
      return {
        id: newIdAt(at), // as the scheduler makes it: when the run is planned
        accountId: row.accountId,
        endpointId: row.id,
        source: 'baseline-interval',
        status: 'success' as const,
        scheduledAt: at,
        startedAt: at,
        completedAt: at,
        durationMs: 5,
      };
    }),
  });
  return row.accountId;
}

describe('runs retention', () => {
  it('deletes runs past the tier limit in batches, keeps the rest, honours overrides', async () => {
    const free = await harness.createAccount({ tier: 'free' });
    const pro = await harness.createAccount({ tier: 'pro' });
    const custom = await harness.createAccount({ tier: 'free' });
    const freeId = await seedRuns(free.apiKey, [1, 6, 8, 8, 8, 40]);
    const proId = await seedRuns(pro.apiKey, [1, 8, 29, 31, 100]);
    const customId = await seedRuns(custom.apiKey, [1, 8, 20]);
    await harness.db.prisma.account.update({
      where: { id: customId },
      data: { quotaOverrides: { runRetentionDays: 10 } },
    });

    const logger = createLogger('retention-test', 'error');
    logger.silent = true;
    const sweeper = new RetentionSweeper({
      db: harness.db,
      logger,
      intervalMs: 60_000,
      batchSize: 2,
      pauseBetweenBatchesMs: 0,
      now: () => new Date(),
    });
    expect(await sweeper.runIfLeader()).toBe(4 + 2 + 1);

    const ages = async (accountId: string) =>
      (await harness.db.prisma.run.findMany({ where: { accountId }, orderBy: { startedAt: 'desc' } })).map((run) =>
        Math.round((Date.now() - run.startedAt.getTime()) / DAY_MS),
      );
    expect(await ages(freeId)).toEqual([1, 6]);
    expect(await ages(proId)).toEqual([1, 8, 29]);
    expect(await ages(customId)).toEqual([1, 8]);
    expect(await sweeper.runIfLeader()).toBe(0);
  });
});
