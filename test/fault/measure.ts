/**
 * What one fault cost, from the target's arrivals and the recorded runs. Definitions (README,
 * "Reliability"):
 * - recovery: from the fault's start until the failed part is back (a killed service answers
 *   /readyz again; otherwise the fault's end) and every endpoint has a run recorded that started
 *   after that moment;
 * - lost: a run id that reached the target but was never recorded, plus an endpoint that did not run
 *   again within the bound. Slots that came due while nothing could run are not lost: the
 *   missed-run rule runs an endpoint once (the latest missed slot) after downtime, never a burst;
 * - recorded twice: two run rows for one planned slot (endpoint, scheduledAt);
 * - executed twice: a request whose run id had already reached the target (a retried delivery), and
 *   separately two different run ids for one planned slot (never allowed).
 */
import pg from 'pg';
import type { Arrival, Load } from './load.js';
import { sleep } from './processes.js';

export interface FaultRow {
  fault: string;
  recoveryMs: number | null;
  lost: number;
  recordedTwice: number;
  executedTwice: number;
  /** Two different run ids delivered for one planned slot. */
  executedTwiceNewId: number;
  notRecovered: number;
  /** What a failing count is made of (the first few slots or run ids), for the failure message. */
  evidence: string[];
}

/** A pool that survives PostgreSQL restarts (a dropped idle client is replaced on the next query). */
export function measurementPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 2000 });
  pool.on('error', () => undefined);
  return pool;
}

/** Endpoints without a recorded scheduled run that started after `sinceMs`. */
async function endpointsNotRunSince(pool: pg.Pool, load: Load, sinceMs: number): Promise<number> {
  const { rows } = await pool.query<{ ran: number }>(
    `SELECT count(DISTINCT "endpointId")::int AS ran FROM runs
      WHERE "accountId" = $1 AND source <> 'test' AND "startedAt" > to_timestamp($2::double precision / 1000)`,
    [load.accountId, sinceMs],
  );
  return load.endpointIds.length - rows[0]!.ran;
}

/**
 * Polls every 250 ms until every endpoint ran after `sinceMs`; returns when that was seen, or
 * undefined at `deadlineMs` with how many never did (queries failing while PostgreSQL is down are
 * retried until the deadline).
 */
export async function waitUntilEveryEndpointRan(
  pool: pg.Pool,
  load: Load,
  sinceMs: number,
  deadlineMs: number,
): Promise<{ atMs?: number; missing: number }> {
  let missing = load.endpointIds.length;
  for (let attempt = 0; Date.now() < deadlineMs && attempt < 10_000; attempt++) {
    missing = await endpointsNotRunSince(pool, load, sinceMs).catch(() => missing);
    if (missing === 0) return { atMs: Date.now(), missing };
    await sleep(250);
  }
  return { missing };
}

/** The endpoints that ran again last after `sinceMs` (or not at all): evidence for a slow recovery. */
export async function lastToRunAgain(pool: pg.Pool, load: Load, sinceMs: number, count = 5): Promise<string[]> {
  const { rows } = await pool.query<{ endpointId: string; first: string | null }>(
    `SELECT e.id AS "endpointId",
            (SELECT to_char(r."startedAt", 'HH24:MI:SS.MS') || ' slot ' || to_char(r."scheduledAt", 'HH24:MI:SS.MS')
                    || ' attempt ' || r.attempt
               FROM runs r WHERE r."endpointId" = e.id AND r.source <> 'test'
                AND r."startedAt" > to_timestamp($2::double precision / 1000)
              ORDER BY r."startedAt" LIMIT 1) AS first
       FROM endpoints e WHERE e."accountId" = $1
      ORDER BY first DESC NULLS FIRST LIMIT $3`,
    [load.accountId, sinceMs, count],
  );
  return rows.map(
    (row) => `ran again last: endpoint ${load.endpointIds.indexOf(row.endpointId)} at ${row.first ?? 'never'}`,
  );
}

/** The counts of one fault's window [fromMs, toMs] (arrival times), after its runs were recorded. */
export async function countWindow(
  pool: pg.Pool,
  load: Load,
  arrivals: Arrival[],
  fromMs: number,
  toMs: number,
): Promise<Pick<FaultRow, 'lost' | 'recordedTwice' | 'executedTwice' | 'executedTwiceNewId' | 'evidence'>> {
  const firstAtMs = new Map<string, number>();
  const inWindow: Arrival[] = [];
  const repeats: string[] = [];
  for (const arrival of arrivals) {
    if (arrival.atMs > toMs) break;
    const firstMs = firstAtMs.get(arrival.runId);
    if (firstMs === undefined) firstAtMs.set(arrival.runId, arrival.atMs);
    if (arrival.atMs < fromMs || arrival.index < 0) continue;
    inWindow.push(arrival);
    if (firstMs !== undefined) {
      repeats.push(
        `delivered again: endpoint ${arrival.index} slot ${arrival.scheduledAt} run ${arrival.runId} ` +
          `at +${arrival.atMs - fromMs} ms (first at +${firstMs - fromMs} ms)`,
      );
    }
  }
  const executedTwice = repeats.length;
  const runIds = [...new Set(inWindow.map((arrival) => arrival.runId))];
  const { rows: recorded } = await pool.query<{ id: string }>(`SELECT id FROM runs WHERE id = ANY($1::uuid[])`, [
    runIds,
  ]);
  const lost = runIds.length - recorded.length;
  const recordedIds = new Set(recorded.map((row) => row.id));
  const evidence = runIds.filter((id) => !recordedIds.has(id)).map((id) => `delivered, never recorded: run ${id}`);

  const { rows: twice } = await pool.query<{ endpointId: string; scheduledAt: Date; runs: string[] }>(
    `SELECT "endpointId", "scheduledAt",
            array_agg(id || ' started ' || to_char("startedAt", 'HH24:MI:SS.MS') || ' attempt ' || attempt) AS runs
       FROM runs
      WHERE "accountId" = $1 AND source <> 'test'
        AND "startedAt" BETWEEN to_timestamp($2::double precision / 1000) AND to_timestamp($3::double precision / 1000)
      GROUP BY "endpointId", "scheduledAt" HAVING count(*) > 1`,
    [load.accountId, fromMs, toMs],
  );
  const recordedTwice = twice.reduce((sum, slot) => sum + slot.runs.length - 1, 0);
  for (const slot of twice) {
    const index = load.endpointIds.indexOf(slot.endpointId);
    evidence.push(`recorded twice: endpoint ${index} slot ${slot.scheduledAt.toISOString()}: ${slot.runs.join('; ')}`);
  }

  const idsPerSlot = new Map<string, Set<string>>();
  for (const arrival of inWindow) {
    const slot = `${arrival.index}@${arrival.scheduledAt}`;
    idsPerSlot.set(slot, (idsPerSlot.get(slot) ?? new Set()).add(arrival.runId));
  }
  const executedTwiceNewId = [...idsPerSlot.values()].reduce((sum, ids) => sum + ids.size - 1, 0);
  for (const [slot, ids] of idsPerSlot) {
    if (ids.size > 1) evidence.push(`delivered under ${ids.size} run ids: endpoint ${slot}: ${[...ids].join(', ')}`);
  }
  return { lost, recordedTwice, executedTwice, executedTwiceNewId, evidence: [...evidence, ...repeats] };
}

export function formatTable(rows: FaultRow[]): string {
  const header = ['fault', 'recovery', 'slots lost', 'recorded twice', 'executed twice'];
  const cells = rows.map((row) => [
    row.fault,
    row.recoveryMs === null
      ? `> bound (${row.notRecovered} endpoints idle)`
      : `${(row.recoveryMs / 1000).toFixed(1)} s`,
    String(row.lost),
    String(row.recordedTwice),
    row.executedTwiceNewId > 0
      ? `${row.executedTwice} (+${row.executedTwiceNewId} under a new run id)`
      : `${row.executedTwice}${row.executedTwice > 0 ? ' (same run id)' : ''}`,
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((line) => line[i]!.length)));
  const line = (values: string[]) => `| ${values.map((value, i) => value.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...cells.map(line)].join('\n');
}
