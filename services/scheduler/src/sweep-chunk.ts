/**
 * One chunk of a sweep (reconcile, retention), with a bad row failing alone: when the chunk's work
 * fails for a reason one row may cause (isItemFailure: PostgreSQL refused a value, the policy cannot
 * evaluate a row's cron), it is done again row by row; a row that still fails is skipped, logged and
 * counted (kairos_sweep_item_failures_total{sweep}), and the sweep goes on, so one unrecomputable
 * endpoint never blocks the repair of Redis for everyone. An outage (database or Redis unreachable)
 * ends the sweep instead: retrying each row would only add load, and the next sweep starts over.
 *
 * Row by row rather than in halves: sweeps are rare and chunks small (200 recomputes, ≈ 2 ms each
 * alone on this machine, so under half a second per failing chunk), and it finds every culprit.
 */
import { isItemFailure, metrics, type Logger } from '@kairos/runtime';

export interface SweepChunkOptions<T> {
  sweep: 'reconcile' | 'retention';
  logger: Logger;
  /** Names a row in the log line of a skipped one. */
  idOf: (item: T) => string;
}

/** Runs `work` on the chunk; returns the rows skipped (empty when the chunk went through whole). */
export async function sweepChunk<T>(
  items: T[],
  work: (items: T[]) => Promise<void>,
  options: SweepChunkOptions<T>,
): Promise<T[]> {
  try {
    await work(items);
    return [];
  } catch (error) {
    if (!isItemFailure(error)) throw error;
    if (items.length === 1) return [skip(items[0]!, error, options)];
  }
  const skipped: T[] = [];
  for (const item of items) {
    try {
      await work([item]);
    } catch (error) {
      if (!isItemFailure(error)) throw error;
      skipped.push(skip(item, error, options));
    }
  }
  return skipped;
}

function skip<T>(item: T, error: unknown, { sweep, logger, idOf }: SweepChunkOptions<T>): T {
  metrics.sweepItemFailures.inc({ sweep });
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  logger.error(`${sweep} sweep skipped a row that fails alone`, {
    id: idOf(item),
    error: error instanceof Error ? error.message : String(error),
    ...(cause ? { cause } : {}),
  });
  return item;
}
