/**
 * Constants shared by the scheduler (config, due-queue.ts) and the executor (run-execution.ts). In core,
 * not in @kairos/queue: the scheduler's config is read before tracing is registered, and importing
 * the queue package there would load ioredis first and leave it uninstrumented.
 */

/**
 * The dispatch lead: a due job becomes due this long before its planned run's time, and the
 * executor, once it has admitted the run (a batched PostgreSQL read and one Redis script: the skip
 * rules, the quota, the running lock), waits for the run's exact time before it calls
 * (services/executor/src/run-execution.ts; the scheduler's due-queue.ts sets the due time). Without a
 * lead the admission's latency is added to every call.
 *
 * Why 300 ms: the lead covers the admission and how late a busy executor fetches a due job (BullMQ
 * fetches the next job when one completes, and jobs complete in record batches; the executor's
 * thread is busy in bursts). At 1,000 due/s on 2 cores, lateness p99 is 22–33 ms with 300 ms,
 * within the floor of 25–57 ms measured beside it; shorter leads leave a tail up to 172 ms
 * (docs/decisions/0001-dispatch-lead-300-ms.md).
 * The cost: each execution holds one of the executor's due jobs (not a call slot: they are twice as
 * many, services/executor/src/call-slots.ts) up to this long before its call (≈ rate × lead jobs: 150
 * of the default 400 at 500 due/s, 300 at 1,000). A waiting run holds no response buffer, and the
 * lead does not lower the rate at which runs start to be late. A pause that lands within the lead
 * of a run does not stop it.
 * Scheduler setting SCHEDULER_DISPATCH_LEAD_MS (0 turns it off).
 */
export const DISPATCH_LEAD_MS = 300;
/**
 * The longest an executor waits for an admitted run's time: SCHEDULER_DISPATCH_LEAD_MS's upper
 * bound. A due job due earlier than that (clocks of the scheduler's and the executor's hosts apart
 * by more) runs at once rather than holding a slot.
 */
export const MAX_DISPATCH_WAIT_MS = 1000;
