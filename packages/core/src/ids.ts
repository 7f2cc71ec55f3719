import { v7 as uuidv7, validate, version } from 'uuid';

/** Time-ordered ids (UUIDv7): good index locality for append-heavy tables such as runs. */
export const newId = (): string => uuidv7();

/** Ids in paths are opaque to callers; anything that is not one of ours is simply not found. */
export const isId = (value: string): boolean => validate(value) && version(value) === 7;

/**
 * A UUIDv7 carrying the time `at` instead of now: for tests and benchmarks that backfill history
 * (runs are partitioned by the time in their id, packages/db/src/partitions.ts).
 */
export const newIdAt = (at: Date): string => uuidv7({ msecs: at.getTime() });
