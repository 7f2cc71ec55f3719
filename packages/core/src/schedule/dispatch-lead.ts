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
 * at 500 due/s on 2 cores, lateness p50 27–30 ms against 3.6 ms for bare BullMQ + got (docs/benchmarks.md).
 * 100 ms, not 30: the lead must also cover how late BullMQ 6.7's worker fetches a due job. While it
 * has jobs in flight, a worker fetches the next due job when one of them completes (moveToFinished's
 * fetchNext), and the executor's jobs complete in batches (the recorder's group commit), so a due
 * job waits for the next batch to finish: at 1,000 due/s, 63 % of due jobs were fetched that way,
 * 2 ms after their due time at p50 but 31 ms at p99 (66 ms at worst). Lateness p99 at 1,000 due/s
 * (docs/benchmarks.md, session 8), the floor 13–22 ms: lead 30 ms → 22–44 ms in nine runs; 60 ms →
 * 16–49 ms in ten; 100 ms → 16–25 ms in seven, within 2× the floor in each.
 * 300 ms, not 100 (session 12): on a slower host (got at 0.36–0.42 CPU-ms per request) the executor's
 * thread is busy in bursts (a record batch of 200, a 12 ms scavenge every 300 ms) and due jobs reached
 * its processor later than 100 ms after their due time at p99: 109 ms (180 at worst), in two parts,
 * BullMQ's promotion (processedOn − due, up to 90 ms) and the wait between processedOn and the
 * processor's start (up to 165 ms). Every call of that tail was late by the rest. Lateness p99 (max)
 * at 1,000 due/s, alternated in one session, three runs each: 100 ms → 96 (172), 37 (102), 54 (129) ms;
 * 200 → 25 (45), 27 (69), 55 (90); 300 → 33 (48), 22 (34), 26 (39), against a floor of 25–57 ms.
 * The cost: each execution holds one of the executor's due jobs (not a call slot: they are twice as
 * many, services/executor/src/call-slots.ts) up to this long before its call (≈ rate × lead jobs: 150
 * of the default 400 at 500 due/s, 300 at 1,000). A waiting run holds no response buffer, and when the due jobs
 * fill, they are fetched later and wait less, so the lead does not lower the rate
 * at which runs start to be late (sustained throughput 2,620 → 2,606 → 2,456/s at 30, 60, 100 ms,
 * inside the run-to-run spread). A pause that lands within the lead of a run no longer stops it.
 * Scheduler setting SCHEDULER_DISPATCH_LEAD_MS (0 turns it off).
 */
export const DISPATCH_LEAD_MS = 300;
/**
 * The longest an executor waits for an admitted run's time: SCHEDULER_DISPATCH_LEAD_MS's upper
 * bound. A due job due earlier than that (clocks of the scheduler's and the executor's hosts apart
 * by more) runs at once rather than holding a slot.
 */
export const MAX_DISPATCH_WAIT_MS = 1000;
