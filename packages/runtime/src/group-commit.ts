/**
 * Group commit: callers submit items one at a time and wait; items that arrive while a batch is
 * being written wait for the next batch. At low rates an item is written on the next turn of the
 * event loop (no added latency); under load one database statement and one Redis write carry up
 * to `maxBatch` items. On this kind of machine a socket write costs more than the work around it
 * (bench/results.md: half of a saturated scheduler's CPU was write syscalls), so the hot paths of
 * the scheduler (recomputes) and the executor (recording runs) go through this.
 *
 * With `keyOf`, an item whose key is already waiting is merged into it (`merge`) and both callers
 * get the one result. `flush` returns one result per item, in order; when it throws, every caller
 * of that batch gets the error (a BullMQ job then fails and is retried) and later batches go on.
 * (dataloader batches per event-loop tick only and holds nothing back while a batch is in flight,
 * the part that matters here; hence these few lines.)
 */

export interface GroupCommitOptions<T> {
  maxBatch: number;
  /** Batches written at once (each usually holds one database connection). */
  maxParallel: number;
  keyOf?: (item: T) => string;
  merge?: (waiting: T, incoming: T) => T;
}

interface Entry<T, R> {
  item: T;
  waiters: { resolve: (result: R) => void; reject: (error: unknown) => void }[];
}

export class GroupCommit<T, R = void> {
  private readonly waiting = new Map<string | number, Entry<T, R>>();
  private nextKey = 0;
  private running = 0;
  private drainScheduled = false;

  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly options: GroupCommitOptions<T>,
  ) {}

  submit(item: T): Promise<R> {
    const key = this.options.keyOf ? this.options.keyOf(item) : this.nextKey++;
    let entry = this.waiting.get(key);
    if (!entry) {
      entry = { item, waiters: [] };
      this.waiting.set(key, entry);
    } else if (this.options.merge) {
      entry.item = this.options.merge(entry.item, item);
    }
    const waiters = entry.waiters;
    const settled = new Promise<R>((resolve, reject) => waiters.push({ resolve, reject }));
    this.scheduleDrain();
    return settled;
  }

  /** Items waiting for a batch, and batches being written. */
  get backlog(): { waiting: number; running: number } {
    return { waiting: this.waiting.size, running: this.running };
  }

  private scheduleDrain(): void {
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      this.drain();
    });
  }

  private drain(): void {
    while (this.running < this.options.maxParallel && this.waiting.size > 0) {
      const batch: Entry<T, R>[] = [];
      for (const [key, entry] of this.waiting) {
        batch.push(entry);
        this.waiting.delete(key);
        if (batch.length >= this.options.maxBatch) break;
      }
      this.running += 1;
      this.write(batch).finally(() => {
        this.running -= 1;
        this.drain();
      });
    }
  }

  private async write(batch: Entry<T, R>[]): Promise<void> {
    try {
      const results = await this.flush(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => entry.waiters.forEach((waiter) => waiter.resolve(results[index]!)));
    } catch (error) {
      batch.forEach((entry) => entry.waiters.forEach((waiter) => waiter.reject(error)));
    }
  }
}
