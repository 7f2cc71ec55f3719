/**
 * Group commit for recomputes. Each consumed `run-completed` or `schedule-changes` job submits its
 * endpoint and waits; submissions that arrive while a batch is being written wait for the next
 * batch. So at low rates a recompute starts on the next turn of the event loop (no added latency:
 * change-to-effect stays in milliseconds), and under load one transaction and one queue write
 * carry up to `maxBatch` endpoints (bench/results.md has the figures before and after).
 *
 * An endpoint submitted twice before its batch starts is recomputed once; the batch's outcome
 * (success or error) settles every waiter, so a failed batch fails each job, which BullMQ retries.
 * (dataloader batches per event-loop tick only and keeps no batch back while one is in flight,
 * which is the part that matters here: hence these few lines.)
 */

export interface RecomputeRequest {
  endpointId: string;
  /**
   * The schedule version of the execution that just ran (run-completed). When the row still has this
   * version, the queued job is that execution itself (finishing now), so there is nothing to remove.
   * Undefined: a change; the superseded job must be removed.
   */
  ranVersion?: number;
}

interface Entry extends RecomputeRequest {
  waiters: { resolve: () => void; reject: (error: unknown) => void }[];
}

export interface RecomputeBatcherOptions {
  maxBatch: number;
  /** Batches written at once (each holds one PostgreSQL connection). */
  maxParallel: number;
}

export class RecomputeBatcher {
  private readonly waiting = new Map<string, Entry>();
  private running = 0;
  private drainScheduled = false;

  constructor(
    private readonly flush: (requests: RecomputeRequest[]) => Promise<void>,
    private readonly options: RecomputeBatcherOptions,
  ) {}

  submit(request: RecomputeRequest): Promise<void> {
    let entry = this.waiting.get(request.endpointId);
    if (!entry) {
      entry = { ...request, waiters: [] };
      this.waiting.set(request.endpointId, entry);
    } else if (entry.ranVersion !== request.ranVersion) {
      entry.ranVersion = undefined; // two different reasons: take the safe one (remove the superseded job)
    }
    const waiters = entry.waiters;
    const settled = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
    this.scheduleDrain();
    return settled;
  }

  /** Endpoints waiting for a batch, and batches being written. */
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
      const batch: Entry[] = [];
      for (const entry of this.waiting.values()) {
        batch.push(entry);
        this.waiting.delete(entry.endpointId);
        if (batch.length >= this.options.maxBatch) break;
      }
      this.running += 1;
      this.flush(batch.map(({ endpointId, ranVersion }) => ({ endpointId, ranVersion })))
        .then(
          () => batch.forEach((entry) => entry.waiters.forEach((waiter) => waiter.resolve())),
          (error: unknown) => batch.forEach((entry) => entry.waiters.forEach((waiter) => waiter.reject(error))),
        )
        .finally(() => {
          this.running -= 1;
          this.drain();
        });
    }
  }
}
