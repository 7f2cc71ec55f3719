/**
 * Adds many due jobs in one Lua script call per chunk. BullMQ's `addBulk` runs its
 * `addDelayedJob` script once per job (a msgpack decode of its arguments, ~8 commands, a cjson encode)
 * and builds a Job object per job on our side: ≈62 CPU-s in redis-server and ≈54 in the reconciler per
 * 1,000,000 re-adds (loaded machine; docs/decisions/0013-due-jobs-added-by-one-script-per-200.md), 257 s for the reconcile after losing Redis
 * against a 60 s target. BullMQ has no path below one script per job, and the packages around it we
 * looked at (framework integrations, dashboards, its Python port) add through those same scripts:
 * hence this script of our own.
 *
 * It writes what BullMQ 6.7.0's `Queue.addBulk` writes for the same job (read from its installed
 * source: commands/addDelayedJob-6.lua, addStandardJob-9.lua and their includes storeJob,
 * addDelayedJob, getDelayedScore, addDelayMarkerIfNeeded, handleDuplicatedJob, getOrSetMaxEvents;
 * the Job class and the Redis queue backend's addJobToTransaction for the arguments), so Workers,
 * Queue.getJob, Queue.remove, Bull Board and the executor's redelivery read these jobs as their own:
 *  - the job hash: name, data (JSON), opts `{"jobId":…,"delay":…}` (cjson's key order, as BullMQ's
 *    script stores it), timestamp, delay, priority 0;
 *  - delay > 0: a member of `delayed` scored (timestamp + delay) × 0x1000 + a counter (the jobs due in
 *    one millisecond keep their order, up to 4,096), then the marker's "1" member moved to the earliest
 *    due time (a worker blocked on the marker wakes for an earlier job);
 *  - delay 0 (overdue): LPUSH on `wait` and the marker's "0" member at 0 unless the queue is paused or
 *    at its global concurrency;
 *  - an existing job key (any state) is left untouched: a `duplicated` event, as BullMQ does;
 *  - `id` counts every job added (BullMQ INCRs it per job even with a custom id) and `meta` gets
 *    `opts.maxLenEvents` 10000 when missing (after a FLUSHALL);
 *  - the events stream gets BullMQ's `added` then `delayed` (or `waiting`) entry per job, trimmed
 *    to maxLenEvents: QueueEvents listeners (bench/run.ts's change scenario waits for `delayed`) keep
 *    working. Kept, though not free: the two XADDs are ≈7 of the script's ≈19 redis-server CPU-s per
 *    1,000,000 jobs (`delayed` ≈3.5, `added` ≈3.5; bench/due-bulk-add.ts, 500,000 jobs, load 2.5).
 *    The reconcile of 1,000,000 endpoints (37–41 s at load 2, docs/decisions/0013-due-jobs-added-by-one-script-per-200.md) is bounded by the two
 *    cores Redis (25 CPU-s), PostgreSQL (24) and the reconciler (11) share, so they cost it ≈2 s;
 *    dropping `added` (no Kairos listener) is the first cut if Redis ever limits it.
 * Everything but the job hashes is a key of the queue's own, under its hash-tagged prefix: one slot,
 * so the script runs on a Redis Cluster too. The format is BullMQ 6.7.0's; services/scheduler/test/
 * due-bulk-add.test.ts compares it field by field with `addBulk` and fails when an upgrade changes it.
 */
import { RedisScript, type RedisConnection } from '@kairos/queue';
import type { Queue } from 'bullmq';

/** One due job to add: its id (dueJobId), its delay from `timestamp` (ms, 0 = due now) and its data as JSON. */
export interface DueJobEntry {
  jobId: string;
  delayMs: number;
  data: string;
}

/**
 * Jobs per script call: a call holds Redis for its whole run (≈16–20 µs per job), so other clients
 * (workers, the executor's admission) wait up to that long. bench/due-bulk-add.ts, 200,000 jobs at
 * load 2: 100 per call held Redis 1.6 ms, 200 4.2 ms, 500 8.2 ms, 1,000 17.5 ms, for the same Redis
 * CPU per job within the noise (16–19.5 s per 1,000,000; BullMQ's addBulk 26.7 s, and 46.5 s of the
 * adding process's CPU against 1.3–3.1); at load 6–10 the same ranking, each figure ≈1.5 times. 100
 * and 200 again side by side (load 1.4, twice each): 14–23 s both, 1.5–2 ms against 2.8–4.4 ms per
 * call; 200 keeps a call's hold a few ms with half the calls.
 */
export const BULK_ADD_CHUNK = 200;

const ADD_DUE_JOBS = new RedisScript(`
local markerKey, metaKey, idKey, delayedKey, waitKey, activeKey, eventsKey =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local jobKeyPrefix, name, timestamp = ARGV[1], ARGV[2], ARGV[3]
local rcall = redis.call
local timestampMs = tonumber(timestamp)

rcall("INCRBY", idKey, (#ARGV - 3) / 3)
local maxEvents = rcall("HGET", metaKey, "opts.maxLenEvents")
if not maxEvents then
  maxEvents = 10000
  rcall("HSET", metaKey, "opts.maxLenEvents", maxEvents)
end

-- The delayed set and the wait list are written in batches of up to 1,000 members (unpack's
-- limit is ≈8,000 values); the last score given in this call per due millisecond is kept here, so
-- getDelayedScore's look-up of the millisecond's highest score sees this call's jobs too.
local delayedScores, waiting, lastScoreAt = {}, {}, {}
local hasDelayed, hasWaiting = false, false
local function flush()
  if #delayedScores > 0 then rcall("ZADD", delayedKey, unpack(delayedScores)) end
  if #waiting > 0 then rcall("LPUSH", waitKey, unpack(waiting)) end
  delayedScores, waiting = {}, {}
end
local added = 0
for i = 4, #ARGV, 3 do
  local jobId, delay, data = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local jobKey = jobKeyPrefix .. jobId
  if rcall("EXISTS", jobKey) == 1 then
    rcall("XADD", eventsKey, "MAXLEN", "~", maxEvents, "*", "event", "duplicated", "jobId", jobId)
  else
    added = added + 1
    rcall("HSET", jobKey, "name", name, "data", data, "opts", '{"jobId":"' .. jobId .. '","delay":' .. delay .. '}',
      "timestamp", timestamp, "delay", delay, "priority", 0)
    rcall("XADD", eventsKey, "*", "event", "added", "jobId", jobId, "name", name)
    local delayMs = tonumber(delay)
    if delayMs > 0 then
      local dueAt = timestampMs + delayMs
      local minScore = dueAt * 0x1000
      local maxScore = (dueAt + 1) * 0x1000 - 1
      local score = lastScoreAt[dueAt]
      if score then
        score = math.min(score + 1, maxScore)
      else
        local highest = rcall("ZREVRANGEBYSCORE", delayedKey, maxScore, minScore, "WITHSCORES", "LIMIT", 0, 1)[2]
        score = highest and math.min(tonumber(highest) + 1, maxScore) or minScore
      end
      lastScoreAt[dueAt] = score
      delayedScores[#delayedScores + 1] = score
      delayedScores[#delayedScores + 1] = jobId
      hasDelayed = true
      rcall("XADD", eventsKey, "MAXLEN", "~", maxEvents, "*", "event", "delayed", "jobId", jobId, "delay", dueAt)
    else
      waiting[#waiting + 1] = jobId
      hasWaiting = true
      rcall("XADD", eventsKey, "MAXLEN", "~", maxEvents, "*", "event", "waiting", "jobId", jobId)
    end
    if #delayedScores >= 2000 or #waiting >= 1000 then flush() end
  end
end
flush()

if hasDelayed then
  local earliest = rcall("ZRANGE", delayedKey, 0, 0, "WITHSCORES")[2]
  rcall("ZADD", markerKey, tonumber(earliest) / 0x1000, "1")
end
if hasWaiting then
  local paused, concurrency = unpack(rcall("HMGET", metaKey, "paused", "concurrency"))
  if not paused and not (concurrency and rcall("LLEN", activeKey) >= tonumber(concurrency)) then
    rcall("ZADD", markerKey, 0, "0")
  end
end
return added
`);

/** A job id the script may splice into the opts JSON unescaped: dueJobId's characters only. */
const PLAIN_JOB_ID = /^[\w.-]+$/;

/**
 * Adds `jobs` to `queue` as BullMQ would with `addBulk` (name `name`, every job's `timestamp` `now`),
 * `chunkSize` per script call (bench/due-bulk-add.ts varies it), the calls pipelined on `connection`.
 * Returns how many were new.
 */
export async function addDueJobs(
  connection: RedisConnection,
  queue: Queue,
  name: string,
  jobs: DueJobEntry[],
  now: number,
  chunkSize = BULK_ADD_CHUNK,
): Promise<number> {
  const keys = ['marker', 'meta', 'id', 'delayed', 'wait', 'active', 'events'].map((type) => queue.toKey(type));
  const head = [queue.toKey(''), name, String(now)];
  const calls: Promise<number>[] = [];
  for (let start = 0; start < jobs.length; start += chunkSize) {
    const args = head.slice();
    for (let index = start; index < Math.min(jobs.length, start + chunkSize); index += 1) {
      const { jobId, delayMs, data } = jobs[index]!;
      if (!PLAIN_JOB_ID.test(jobId) || !Number.isSafeInteger(delayMs) || delayMs < 0)
        throw new Error(`due job ${jobId}: an id of [A-Za-z0-9_.-] and a whole delay ≥ 0 expected, got ${delayMs}`);
      args.push(jobId, String(delayMs), data);
    }
    calls.push(ADD_DUE_JOBS.run(connection, keys, args) as Promise<number>);
  }
  const added = await Promise.all(calls);
  return added.reduce((sum, count) => sum + count, 0);
}
