/**
 * Group commit: callers submit items one at a time and wait; items that arrive while a batch is
 * being written wait for the next batch. At low rates an item is written on the next turn of the
 * event loop (no added latency); under load one database statement and one Redis write carry up
 * to `maxBatch` items. On this kind of machine a socket write costs more than the work around it
 * (half of a saturated scheduler's CPU is write syscalls without it;
 * docs/decisions/0008-group-commit-on-the-hot-path.md), so the hot paths of
 * the scheduler (recomputes) and the executor (recording runs) go through this.
 *
 * With `keyOf`, an item whose key is already waiting is merged into it (`merge`) and both callers
 * get the one result. `flush` returns one result per item, in order.
 *
 * A bad item fails alone: when `flush` throws an error that `isItemFailure` says one item may have
 * caused, the batch is written again in halves, recursively, until only the culprit fails alone;
 * everyone else's item is written and resolved. One culprit among 200 costs about
 * 2·log2(200) ≈ 16 extra flushes, one at a time (the halves run in turn, so a split never takes more
 * connections than the batch it replaces). Other failures (the database or Redis unreachable) reject
 * every caller of the batch at once: splitting would multiply the load on a system already down.
 * So `flush` must be safe to run again on a part of a batch it failed on (one statement, or
 * idempotent writes). Later batches go on either way.
 * (dataloader batches per event-loop tick only and holds nothing back while a batch is in flight,
 * the part that matters here; hence these few lines.)
 */

export interface GroupCommitOptions<T> {
  maxBatch: number;
  /** Batches written at once (each usually holds one database connection). */
  maxParallel: number;
  keyOf?: (item: T) => string;
  merge?: (waiting: T, incoming: T) => T;
  /** Whether a failed flush may be caused by one item, so that splitting the batch isolates it (default: never). */
  isItemFailure?: (error: unknown) => boolean;
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
    let results: R[];
    try {
      results = await this.flush(batch.map((entry) => entry.item));
    } catch (error) {
      if (batch.length > 1 && this.options.isItemFailure?.(error)) {
        const half = Math.ceil(batch.length / 2);
        await this.write(batch.slice(0, half));
        await this.write(batch.slice(half));
      } else {
        batch.forEach((entry) => entry.waiters.forEach((waiter) => waiter.reject(error)));
      }
      return;
    }
    batch.forEach((entry, index) => entry.waiters.forEach((waiter) => waiter.resolve(results[index]!)));
  }
}
