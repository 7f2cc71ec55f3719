/**
 * Queue names and the key prefix. The prefix is a Redis Cluster hash tag ({kairos}), so every key
 * BullMQ writes for our queues lands in one slot: BullMQ's Lua scripts touch several keys at once
 * and would fail with CROSSSLOT otherwise (see docs/operations.md).
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
   * fan out. Named `planner-runs` until issue #18: jobs still waiting under the old name are
   * abandoned by the rename (Redis is derived state; the planner catches up on the next run).
   */
  runCompletedForPlanner: 'run-completed-planner',
  /** "Test now" executions requested through the API (api → executor; the API awaits the result). */
  testRuns: 'test-runs',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];
