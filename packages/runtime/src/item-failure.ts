/**
 * Which failures one item of a batch can cause (so splitting the batch isolates it), and which
 * belong to the whole system (splitting would only multiply the load on something already down).
 *
 * Item-specific: PostgreSQL answered and refused this data (a SQLSTATE outside the classes below,
 * e.g. 22P05 "unsupported Unicode escape sequence" for U+0000 in jsonb, 23503 a foreign key), or
 * code that knows the item is at fault says so with an ItemFailure (a cron the policy cannot
 * evaluate). Everything else is treated as an outage: no SQLSTATE (a socket error, a pool timeout,
 * ioredis "Connection is closed"), class 08 (connection exception), 57P (server shutting down or
 * starting) and 53 (out of connections, memory or disk).
 */

/** Thrown by code that knows this item (not the database or Redis) caused the failure. */
export class ItemFailure extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'ItemFailure';
  }
}

const OUTAGE_SQLSTATE = /^(08|57P|53)/;

/** The SQLSTATE of an error PostgreSQL sent (pg's DatabaseError carries `code` and `severity`). */
export function sqlState(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  // `severity` tells a server error from a Node system error whose code is also 5 letters (EPIPE).
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string' ? code : null;
}

/** Whether this failure may be caused by one item of the batch (see the file's doc block). */
export function isItemFailure(error: unknown): boolean {
  if (error instanceof ItemFailure) return true;
  const state = sqlState(error);
  return state !== null && !OUTAGE_SQLSTATE.test(state);
}
