import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7, validate, version } from 'uuid';

/**
 * Random bytes for ids, drawn 4 KiB at a time: uuid's own source asks Web Crypto for 16 bytes per id,
 * 3.1–3.6 µs of CPU an id against 0.6–0.9 from this pool (300,000 ids, one process; the scheduler
 * makes one per planned run: docs/decisions/0016-run-ids-from-a-random-pool.md).
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

function randomBytes16(): Uint8Array {
  if (poolAt + 16 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool.subarray(poolAt, (poolAt += 16));
}

/**
 * The last id's millisecond and counter (RFC 9562 §6.2, method 1), kept here because uuid keeps its
 * own only for ids made from its own random bytes: a new millisecond starts the counter at a random
 * 31-bit value, each further id in it adds one, and an overflow borrows the next millisecond, so the
 * ids of one process are strictly increasing.
 */
let lastMs = -Infinity;
let counter = 0;

/** Time-ordered ids (UUIDv7): good index locality for append-heavy tables such as runs. */
export function newId(): string {
  const random = randomBytes16();
  // eslint-disable-next-line no-restricted-properties -- an id carries the clock's time, as uuid's own default reads it
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    counter = (counter + 1) | 0;
    if (counter === 0) lastMs += 1;
  }
  return uuidv7({ random, msecs: lastMs, seq: counter });
}

/** Ids in paths are opaque to callers; anything that is not one of ours is simply not found. */
export const isId = (value: string): boolean => validate(value) && version(value) === 7;

/**
 * A UUIDv7 carrying the time `at` instead of now: for tests and benchmarks that backfill history
 * (runs are partitioned by the time in their id, packages/db/src/partitions.ts).
 */
export const newIdAt = (at: Date): string => uuidv7({ msecs: at.getTime() });
