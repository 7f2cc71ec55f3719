import { GroupCommit } from './group-commit.js';

interface RecomputeRequest {
  endpointId: string;
  ranVersion?: number;
}

/** The scheduler's use: one recompute per endpoint; differing versions fall back to "remove the job". */
const recomputeOptions = {
  keyOf: (request: RecomputeRequest) => request.endpointId,
  merge: (waiting: RecomputeRequest, incoming: RecomputeRequest) =>
    waiting.ranVersion === incoming.ranVersion ? waiting : { endpointId: waiting.endpointId },
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
    const later = ['b', 'c', 'd', 'e'].map((endpointId) => batcher.submit({ endpointId, ranVersion: 7 }));
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
      batcher.submit({ endpointId: 'a', ranVersion: 3 }),
      batcher.submit({ endpointId: 'a', ranVersion: 3 }),
    ];
    const mixed = [batcher.submit({ endpointId: 'b', ranVersion: 3 }), batcher.submit({ endpointId: 'b' })];
    await tick();
    expect(batches[0]!.requests).toEqual([{ endpointId: 'a', ranVersion: 3 }, { endpointId: 'b' }]);
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
});
