/**
 * Queue names and the key prefix. The prefix is a Redis Cluster hash tag ({kairos}), so every key
 * BullMQ writes for one queue lands in one slot: BullMQ's Lua scripts touch several keys at once
 * and would fail with CROSSSLOT otherwise (see docs/operations/scaling.md). With KAIROS_QUEUE_SHARDS > 1
 * the SHARDED_QUEUES exist once per shard, shard k under `shardPrefix(prefix, k)` ({kairos},
 * {kairos-1}, {kairos-2}…: shards.ts), each its own slot; the others stay under the prefix alone.
 */
export const QUEUE_PREFIX_DEFAULT = '{kairos}';

export const QUEUES = {
  /** One delayed BullMQ job per active endpoint carrying its planned run, due at its nextRunAt (scheduler → executor). */
  due: 'due',
  /** Something about an endpoint's schedule changed; recompute it now (api → scheduler). */
  scheduleChanges: 'schedule-changes',
  /** A scheduled execution was recorded (executor → scheduler, which recomputes the next one). */
  runCompleted: 'run-completed',
  /**
   * The same run-completed payloads for the AI planner (executor → planner); BullMQ queues do not
   * fan out. Jobs still waiting under the older name `planner-runs` were
   * abandoned by the rename (Redis is derived state; the planner catches up on the next run).
   */
  runCompletedForPlanner: 'run-completed-planner',
  /** "Test now" executions requested through the API (api → executor; the API awaits the result). */
  testRuns: 'test-runs',
  /**
   * Runs asked for through the API (api → executor; the API answers at once): Run now and replay
   * (source manual) and backfill (source backfill, one job per slot, its id naming the slot).
   */
  manualRuns: 'manual-runs',
  /**
   * A notification to deliver to one channel (executor, api, planner → the executor's notification
   * worker), plus the worker's repeatable quota check.
   */
  notifications: 'notifications',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/**
 * The queues split by KAIROS_QUEUE_SHARDS: their traffic grows with executions (one due job, one
 * run-completed and, with AI scheduling, one run-completed-planner job per execution). The others
 * stay single: schedule-changes grows with edits and skips, test-runs with people pressing Test now
 * (the api awaits each one), notifications with state changes (a few per failing streak).
 */
export const SHARDED_QUEUES: readonly QueueName[] = [QUEUES.due, QUEUES.runCompleted, QUEUES.runCompletedForPlanner];
