/**
 * Call slots: how many executions of this process may be calling their endpoint or recording what
 * it answered at once (EXECUTOR_CONCURRENCY, default 100), due and Test now runs alike. That is the
 * part of an execution that holds a response in memory (up to 1 MiB each: maxResponseSizeKb's cap),
 * so the slots bound the executor's memory (config.ts).
 *
 * The due workers take more jobs than there are slots (DUE_JOBS_PER_CALL_SLOT): an execution that
 * is being admitted, waiting for its run's time (the dispatch lead) or moved by BullMQ holds no
 * response, and with one BullMQ job per slot those phases kept slots idle. At 3,000 endpoints at
 * 1 s on 2 cores a slot was held 30 ms (admission 7.5, wait 0.8, call 7.8, record 13.8) plus
 * BullMQ's moves, and 100 of them carried at most ≈2,770 executions/s while the CPU could carry
 * ≈3,350 (bench/results.md, session 9).
 *
 * `kairos_executor_concurrency_in_use` counts the slots taken (against `…_limit`): the executor's
 * saturation alert (deploy/observability/prometheus-rules.yaml) reads calls in flight.
 */
import { metrics } from '@kairos/runtime';
import pLimit from 'p-limit';

/**
 * Due jobs a process takes per call slot. 2: at 3,000 endpoints at 1 s on 2 cores, delivered
 * executions went from 2,739–2,765/s (bound by 100 slots) to 3,030/s, and on a slower host from
 * 1,500–1,539/s to 1,843–2,001/s, back to back, with the executor's CPU per execution 0.56–0.59 →
 * 0.44–0.49 ms (bench/results.md, session 9).
 */
export const DUE_JOBS_PER_CALL_SLOT = 2;

/** Runs `work` once a call slot is free, holding the slot until it settles. */
export type CallSlots = <T>(work: () => Promise<T>) => Promise<T>;

export function createCallSlots(count: number): CallSlots {
  const limit = pLimit(count);
  return (work) =>
    limit(async () => {
      metrics.executorConcurrencyInUse.inc();
      try {
        return await work();
      } finally {
        metrics.executorConcurrencyInUse.dec();
      }
    });
}
