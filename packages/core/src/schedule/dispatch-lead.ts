/**
 * Constants shared by the scheduler (config, due-queue.ts) and the executor (execute.ts). In core,
 * not in @kairos/queue: the scheduler's config is read before tracing is registered, and importing
 * the queue package there would load ioredis first and leave it uninstrumented.
 */

/**
 * The dispatch lead: a due job becomes due this long before its planned run's time, and the
 * executor, once it has admitted the run (a batched PostgreSQL read and one Redis script: the skip
 * rules, the quota, the running lock), waits for the run's exact time before it calls
 * (services/executor/src/execute.ts; the scheduler's due-queue.ts sets the due time). Without it the admission's latency was added to every call:
 * at 500 due/s on 2 cores, lateness p50 27–30 ms against 3.6 ms for bare BullMQ + got (bench/results.md).
 * The cost: each execution holds its executor slot up to this long before its call (≈ rate × lead
 * slots: 15 of the default 100 at 500 due/s), and a pause that lands within the lead of a run no
 * longer stops it (it was the few ms of the admission before). Scheduler setting
 * SCHEDULER_DISPATCH_LEAD_MS (0 turns it off).
 */
export const DISPATCH_LEAD_MS = 30;
/**
 * The longest an executor waits for an admitted run's time: SCHEDULER_DISPATCH_LEAD_MS's upper
 * bound. A due job due earlier than that (clocks of the scheduler's and the executor's hosts apart
 * by more) runs at once rather than holding a slot.
 */
export const MAX_DISPATCH_WAIT_MS = 1000;
