/**
 * Call slots: how many executions of this process may be calling their endpoint at once
 * (EXECUTOR_CONCURRENCY, default 200), due and Test now runs alike, and how much response they may
 * hold between them (EXECUTOR_RESPONSE_MEMORY_MB, default 100). A call takes a slot and reserves its
 * endpoint's maxResponseSizeKb (default 100 KiB, cap 1 MiB); the slot is freed when the call ends
 * (every attempt), the memory when its work settles, once the run is recorded: the response stays in
 * memory until then, so the reservations bound the executor's response memory whatever the endpoints'
 * limits (config.ts), and the due jobs a process takes (DUE_JOBS_PER_CALL_SLOT) bound the records in
 * flight.
 *
 * Why the slot is not held through the record: a record waits for its batch (run-recorder.ts, up to
 * 200 runs), and slots waiting with it would keep calls from starting, so the next batch would be
 * smaller and cost more per run. Freed at the call's end, executions at saturation on 2 cores are
 * 6 % higher and the wait for a slot 0.5–1 ms (docs/decisions/0004-call-slot-held-for-the-call-alone.md).
 *
 * The due workers take more jobs than there are slots (DUE_JOBS_PER_CALL_SLOT): an execution that
 * is being admitted, waiting for its run's time (the dispatch lead), recorded or moved by BullMQ
 * makes no call, and with one BullMQ job per slot those phases keep slots idle
 * (docs/decisions/0003-two-due-jobs-per-call-slot.md).
 *
 * Both bounds are first come, first served, in one line: a call that needs 1 MiB of a nearly full
 * budget waits at the head of the line instead of being overtaken forever by small ones. Written
 * here because no library fits: async-mutex's weighted Semaphore walks every free unit on each
 * release (236 µs per call with a budget of 102,400 KiB), and p-limit in front of a line for the
 * memory costs 1.1–1.2 µs of CPU per call against 0.4–0.5 for this one line, which takes a free
 * slot without a promise or a turn of the event loop
 * (docs/decisions/0007-call-slot-line-written-here.md). A release is O(waiting calls).
 *
 * `kairos_executor_concurrency_in_use` counts the slots taken (against `…_limit`): the executor's
 * saturation alert (deploy/observability/prometheus-rules.yaml) reads calls in flight.
 */
import { metrics } from '@kairos/runtime';

/**
 * Due jobs a process takes per call slot. 2: at 3,000 endpoints at 1 s on 2 cores it delivers
 * 3,030 executions/s where one per slot is bound at ≈2,770/s, and 3 is no faster
 * (docs/decisions/0003-two-due-jobs-per-call-slot.md).
 */
export const DUE_JOBS_PER_CALL_SLOT = 2;

/**
 * Runs `work` once a call slot and `responseKb` of the response memory are free. The slot is held
 * until `work` calls `callEnded` (at the latest until it settles), the memory until it settles.
 */
export type CallSlots = <T>(responseKb: number, work: (callEnded: () => void) => Promise<T>) => Promise<T>;

export function createCallSlots(count: number, responseMemoryKb: number): CallSlots {
  const line = new SlotLine(count, responseMemoryKb);
  return async (responseKb, work) => {
    // An endpoint allowed more than the whole budget runs alone rather than never.
    const kb = Math.min(responseKb, responseMemoryKb);
    if (!line.take(kb)) await line.wait(kb);
    metrics.executorConcurrencyInUse.inc();
    let calling = true;
    const callEnded = () => {
      if (!calling) return;
      calling = false;
      metrics.executorConcurrencyInUse.dec();
      line.release(1, 0);
    };
    try {
      return await work(callEnded);
    } finally {
      callEnded(); // work that settled without saying: its call has ended too
      line.release(0, kb);
    }
  };
}

/** The free slots and KiB of response memory, handed out in the order they were asked for. */
class SlotLine {
  private readonly waiting: { kb: number; taken: () => void }[] = [];

  constructor(
    private freeSlots: number,
    private freeKb: number,
  ) {}

  /** Takes a slot and `kb` at once when nobody waits and both are free; false: wait for them. */
  take(kb: number): boolean {
    if (this.waiting.length > 0 || !this.fits(kb)) return false;
    this.hold(kb);
    return true;
  }

  /** Resolves once a slot and `kb` are taken for the caller, after everyone who asked before. */
  wait(kb: number): Promise<void> {
    return new Promise((taken) => this.waiting.push({ kb, taken }));
  }

  /** Gives back `slots` (a call ended) and `kb` (its work settled) and hands them on in order. */
  release(slots: number, kb: number): void {
    this.freeSlots += slots;
    this.freeKb += kb;
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.kb)) {
      const next = this.waiting.shift()!;
      this.hold(next.kb);
      next.taken();
    }
  }

  private fits(kb: number): boolean {
    return this.freeSlots > 0 && kb <= this.freeKb;
  }

  private hold(kb: number): void {
    this.freeSlots -= 1;
    this.freeKb -= kb;
  }
}
