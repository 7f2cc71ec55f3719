import { GroupCommit } from './group-commit.js';
import { ItemFailure, isItemFailure } from './item-failure.js';

interface RecomputeRequest {
  endpointId: string;
  scheduleVersion?: number;
}

/** The scheduler's use: one recompute per endpoint; differing versions fall back to "remove the job". */
const recomputeOptions = {
  keyOf: (request: RecomputeRequest) => request.endpointId,
  merge: (waiting: RecomputeRequest, incoming: RecomputeRequest) =>
    waiting.scheduleVersion === incoming.scheduleVersion ? waiting : { endpointId: waiting.endpointId },
};

/** A flush whose batches the test completes by hand, recording what each batch held. */
function manualFlush() {
  const batches: { requests: RecomputeRequest[]; finish: (error?: Error) => void }[] = [];
  const flush = (requests: RecomputeRequest[]) =>
    new Promise<number[]>((resolve, reject) => {
      batches.push({ requests, finish: (error) => (error ? reject(error) : resolve(requests.map((_, i) => i))) });
    });
  return { batches, flush };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('starts a lone request on the next turn of the event loop', async () => {
    const { batches, flush } = manualFlush();
    const batcher = new GroupCommit(flush, { ...recomputeOptions, maxBatch: 10, maxParallel: 1 });
    const done = batcher.submit({ endpointId: 'a' });
    await tick();
    expect(batches.map((batch) => batch.requests)).toEqual([[{ endpointId: 'a' }]]);
    batches[0]!.finish();
    await expect(done).resolves.toBe(0);
  });

  it('groups what arrives while a batch is being written into the next batch, up to maxBatch', async () => {
    const { batches, flush } = manualFlush();
    const batcher = new GroupCommit(flush, { ...recomputeOptions, maxBatch: 3, maxParallel: 1 });
    const first = batcher.submit({ endpointId: 'a' });
    await tick();
    const later = ['b', 'c', 'd', 'e'].map((endpointId) => batcher.submit({ endpointId, scheduleVersion: 7 }));
    await tick();
    expect(batches).toHaveLength(1); // one batch at a time
    expect(batcher.backlog).toEqual({ waiting: 4, running: 1 });
    batches[0]!.finish();
    await first;
    await tick();
    expect(batches[1]!.requests.map((request) => request.endpointId)).toEqual(['b', 'c', 'd']);
    batches[1]!.finish();
    await Promise.all(later.slice(0, 3));
    await tick();
    expect(batches[2]!.requests.map((request) => request.endpointId)).toEqual(['e']);
    batches[2]!.finish();
    await later[3];
  });

  it('runs up to maxParallel batches at once', async () => {
    const { batches, flush } = manualFlush();
    const batcher = new GroupCommit(flush, { ...recomputeOptions, maxBatch: 1, maxParallel: 2 });
    const all = ['a', 'b', 'c'].map((endpointId) => batcher.submit({ endpointId }));
    await tick();
    expect(batches).toHaveLength(2);
    batches[0]!.finish();
    await all[0];
    await tick();
    expect(batches).toHaveLength(3);
    batches[1]!.finish();
    batches[2]!.finish();
    await Promise.all(all);
  });

  it('merges items with one key: one write, every caller gets its result', async () => {
    const { batches, flush } = manualFlush();
    const batcher = new GroupCommit(flush, { ...recomputeOptions, maxBatch: 10, maxParallel: 1 });
    const same = [
      batcher.submit({ endpointId: 'a', scheduleVersion: 3 }),
      batcher.submit({ endpointId: 'a', scheduleVersion: 3 }),
    ];
    const mixed = [batcher.submit({ endpointId: 'b', scheduleVersion: 3 }), batcher.submit({ endpointId: 'b' })];
    await tick();
    expect(batches[0]!.requests).toEqual([{ endpointId: 'a', scheduleVersion: 3 }, { endpointId: 'b' }]);
    batches[0]!.finish();
    expect(await Promise.all([...same, ...mixed])).toEqual([0, 0, 1, 1]); // merged callers share the result
  });

  it('fails every waiter of a failed batch (BullMQ retries their jobs) and carries on with the next', async () => {
    const { batches, flush } = manualFlush();
    const batcher = new GroupCommit(flush, { ...recomputeOptions, maxBatch: 10, maxParallel: 1 });
    const failing = [batcher.submit({ endpointId: 'a' }), batcher.submit({ endpointId: 'b' })];
    await tick();
    const next = batcher.submit({ endpointId: 'c' });
    batches[0]!.finish(new Error('connection lost'));
    await expect(failing[0]).rejects.toThrow('connection lost');
    await expect(failing[1]).rejects.toThrow('connection lost');
    await tick();
    batches[1]!.finish();
    await expect(next).resolves.toBe(0);
  });

  it('splits a batch that one item fails until only that item fails; the others are written', async () => {
    const flushed: string[][] = [];
    // A flush that writes all or nothing and refuses any batch holding the poison item.
    const flush = async (requests: RecomputeRequest[]) => {
      flushed.push(requests.map((request) => request.endpointId));
      if (requests.some((request) => request.endpointId === 'poison')) throw new ItemFailure('bad cron', null);
      return requests.map((request) => request.endpointId.toUpperCase());
    };
    const batcher = new GroupCommit(flush, { ...recomputeOptions, maxBatch: 10, maxParallel: 1, isItemFailure });
    const ids = ['a', 'b', 'c', 'poison', 'd', 'e', 'f'];
    const results = await Promise.allSettled(ids.map((endpointId) => batcher.submit({ endpointId })));
    expect(results.map((result) => (result.status === 'fulfilled' ? result.value : 'rejected'))).toEqual([
      'A',
      'B',
      'C',
      'rejected',
      'D',
      'E',
      'F',
    ]);
    expect((results[3] as PromiseRejectedResult).reason).toBeInstanceOf(ItemFailure);
    // Halves in turn: [a..f] → [a,b,c,poison] → [a,b] ok, [c,poison] → [c] ok, [poison] fails; [d,e,f] ok.
    expect(flushed).toEqual([
      ids,
      ['a', 'b', 'c', 'poison'],
      ['a', 'b'],
      ['c', 'poison'],
      ['c'],
      ['poison'],
      ['d', 'e', 'f'],
    ]);
  });

  it('rejects the whole batch without splitting when the failure is not one item (an outage)', async () => {
    let flushes = 0;
    const outage = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
      severity: 'FATAL',
    });
    const batcher = new GroupCommit(
      async () => {
        flushes += 1;
        throw outage;
      },
      { ...recomputeOptions, maxBatch: 10, maxParallel: 1, isItemFailure },
    );
    const results = await Promise.allSettled(['a', 'b', 'c', 'd'].map((endpointId) => batcher.submit({ endpointId })));
    expect(results.every((result) => result.status === 'rejected' && result.reason === outage)).toBe(true);
    expect(flushes).toBe(1);
  });

  it('tells item failures from outages', () => {
    const fromServer = (code: string) => Object.assign(new Error(code), { code, severity: 'ERROR' });
    expect(isItemFailure(fromServer('22P05'))).toBe(true); // U+0000 in jsonb
    expect(isItemFailure(fromServer('23503'))).toBe(true); // a foreign key
    expect(isItemFailure(new ItemFailure('bad time zone', new RangeError('Invalid time zone')))).toBe(true);
    expect(isItemFailure(fromServer('08006'))).toBe(false); // connection failure
    expect(isItemFailure(fromServer('57P03'))).toBe(false); // cannot connect now
    expect(isItemFailure(fromServer('53300'))).toBe(false); // too many connections
    expect(isItemFailure(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe(false);
    expect(isItemFailure(new Error('Connection is closed.'))).toBe(false); // ioredis
    expect(isItemFailure(new RangeError('Invalid time zone'))).toBe(false); // unmarked: treated as an outage
  });
});
