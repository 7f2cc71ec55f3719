/**
 * Prometheus metrics: one registry per process (`metrics`), served at /metrics by every service
 * (health-server.ts for the workers, a plain route for the api). Series (docs/operations/observability.md):
 *
 *   kairos_queue_jobs{queue,state}                   gauge, read from BullMQ on each scrape
 *   kairos_dispatch_lag_seconds{source}              histogram of startedAt − scheduledAt (executor)
 *   kairos_runs_total{source,status}                 counter of recorded runs (executor)
 *   kairos_executions_skipped_total{reason}          counter of due jobs dropped without a run (executor)
 *   kairos_executor_concurrency_in_use               gauge: call slots taken in this process (calls in flight)
 *   kairos_executor_concurrency_limit                gauge: EXECUTOR_CONCURRENCY
 *   kairos_execution_phase_seconds{phase}            histogram of a due job's time: admission, wait, call, record (executor)
 *   kairos_planner_tokens_total                      counter (planner: metrics.plannerTokens.inc(n))
 *   kairos_planner_failures_total{reason}            counter (planner: metrics.plannerFailures.inc({ reason }))
 *   kairos_planner_model_paused                      gauge: 1 while this planner sees model calls paused (a failing model)
 *   kairos_planner_model_pauses_total                counter of pauses of model calls this planner started
 *   kairos_reconcile_repairs_total{kind}             counter: restored jobs, recomputed endpoints (scheduler)
 *   kairos_sweep_item_failures_total{sweep}          counter: rows a sweep skipped because they alone failed (scheduler)
 * plus Node's default process metrics (CPU, memory, event-loop lag) on the process-wide registry.
 *
 * Queue depth is read on scrape (getJobCounts: a handful of Redis reads per queue), never pushed,
 * so an idle process costs nothing and the figure is as fresh as the scrape.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What the queue-depth gauge reads: a BullMQ Queue satisfies it (runtime does not import bullmq). */
export interface QueueCountSource {
  readonly name: string;
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
}

/** Job states reported per queue. `delayed` is the scheduled backlog; `wait` + `prioritized` are due now. */
export const QUEUE_STATES = ['wait', 'prioritized', 'active', 'delayed', 'failed'] as const;

/** 1 ms … 60 s: the benchmark's targets (p99 ≤ 50 ms) sit in the fine end, outages in the coarse end. */
export const DISPATCH_LAG_BUCKETS_SECONDS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/**
 * How often the event-loop lag histogram (nodejs_eventloop_lag_*) samples: a timer that wakes the
 * process. prom-client's 10 ms woke every idle service 100 times a second: 6.2 ms of CPU a second
 * for an idle planner on this machine (the schedstat of its threads over 30 s), ≈ 0.6 % of a core per
 * idle process, every second of a mostly idle deployment. At 50 ms: 1.7 ms a second. A block of the
 * loop of 50 ms or more is always seen; a shorter one is sampled in proportion to its length.
 */
const EVENT_LOOP_SAMPLE_MS = 50;

/** A scrape must not hang on a Redis outage: queue counts not read within this are left out. */
const QUEUE_COUNT_TIMEOUT_MS = 2000;

export interface MetricsOptions {
  /** Node's default process metrics (only once per registry; on for the process-wide one). */
  defaultMetrics?: boolean;
}

export class KairosMetrics {
  readonly registry = new Registry();
  private readonly watchedQueues = new Set<QueueCountSource>();

  readonly queueJobs: Gauge<'queue' | 'state'>;
  readonly dispatchLag: Histogram<'source'>;
  readonly runOutcomes: Counter<'source' | 'status'>;
  readonly executionsSkipped: Counter<'reason'>;
  readonly executorConcurrencyInUse: Gauge;
  readonly executorConcurrencyLimit: Gauge;
  readonly executionPhase: Histogram<'phase'>;
  readonly plannerTokens: Counter;
  readonly plannerFailures: Counter<'reason'>;
  readonly plannerModelPaused: Gauge;
  readonly plannerModelPauses: Counter;
  readonly reconcileRepairs: Counter<'kind'>;
  readonly sweepItemFailures: Counter<'sweep'>;

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry];
    const watched = this.watchedQueues;
    this.queueJobs = new Gauge({
      name: 'kairos_queue_jobs',
      help: 'Jobs per BullMQ queue and state, read on each scrape',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        this.reset();
        await Promise.all([...watched].map((queue) => collectQueue(this, queue)));
      },
    });
    this.dispatchLag = new Histogram({
      name: 'kairos_dispatch_lag_seconds',
      help: 'Dispatch lag of recorded scheduled runs: startedAt minus scheduledAt',
      labelNames: ['source'],
      buckets: DISPATCH_LAG_BUCKETS_SECONDS,
      registers,
    });
    this.runOutcomes = new Counter({
      name: 'kairos_runs_total',
      help: 'Recorded runs by source (baseline-cron, baseline-interval, ai-interval, ai-oneshot, test) and status',
      labelNames: ['source', 'status'],
      registers,
    });
    this.executionsSkipped = new Counter({
      name: 'kairos_executions_skipped_total',
      help: 'Due executions dropped without a run (paused, archived, stale, overlap, ...)',
      labelNames: ['reason'],
      registers,
    });
    this.executorConcurrencyInUse = new Gauge({
      name: 'kairos_executor_concurrency_in_use',
      help: 'Calls in flight in this executor process (call slots taken)',
      registers,
    });
    this.executorConcurrencyLimit = new Gauge({
      name: 'kairos_executor_concurrency_limit',
      help: 'Call slots of this executor process: calls in flight at most (EXECUTOR_CONCURRENCY)',
      registers,
    });
    // Where a due job's time in the executor goes: an executor is bound by how long each of its
    // EXECUTOR_CONCURRENCY slots is held (Little's law) as much as by CPU, and only the call holds a
    // slot (services/executor/src/call-slots.ts, docs/decisions/0004-call-slot-held-for-the-call-alone.md).
    this.executionPhase = new Histogram({
      name: 'kairos_execution_phase_seconds',
      help:
        'Time a scheduled execution spends in each phase of the executor: admission (skip rules, quota, ' +
        'lock), wait (until the run is due, the dispatch lead, then for a call slot), call (every attempt), record',
      labelNames: ['phase'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.plannerTokens = new Counter({
      name: 'kairos_planner_tokens_total',
      help: 'Model tokens used by the planner (input plus output)',
      registers,
    });
    this.plannerFailures = new Counter({
      name: 'kairos_planner_failures_total',
      help: 'Planner analyses that failed, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.plannerModelPaused = new Gauge({
      name: 'kairos_planner_model_paused',
      help: 'Whether this planner sees model calls paused after the model failed too often in a row (1) or not (0)',
      registers,
    });
    this.plannerModelPauses = new Counter({
      name: 'kairos_planner_model_pauses_total',
      help: 'Pauses of model calls this planner started (the model failed too often in a row, or a 429 asked for a long wait)',
      registers,
    });
    this.reconcileRepairs = new Counter({
      name: 'kairos_reconcile_repairs_total',
      help: 'Reconcile sweep repairs: restored (delayed job re-added) and recomputed (schedule disagreed)',
      labelNames: ['kind'],
      registers,
    });
    this.sweepItemFailures = new Counter({
      name: 'kairos_sweep_item_failures_total',
      help: 'Rows a sweep (reconcile, retention) skipped because they alone failed; the sweep went on',
      labelNames: ['sweep'],
      registers,
    });
    if (options.defaultMetrics) {
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    }
  }

  /** Reports these queues' depths on every scrape until the returned function is called. */
  watchQueues(queues: QueueCountSource[]): () => void {
    for (const queue of queues) this.watchedQueues.add(queue);
    return () => {
      for (const queue of queues) this.watchedQueues.delete(queue);
    };
  }

  /** One recorded scheduled run: its lag and its outcome. */
  observeRun(run: { source: string; status: string; scheduledAt: Date; startedAt: Date }): void {
    const lagMs = Math.max(0, run.startedAt.getTime() - run.scheduledAt.getTime());
    this.dispatchLag.observe({ source: run.source }, lagMs / 1000);
    this.runOutcomes.inc({ source: run.source, status: run.status });
  }
}

async function collectQueue(gauge: Gauge<'queue' | 'state'>, queue: QueueCountSource): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), QUEUE_COUNT_TIMEOUT_MS);
  });
  try {
    const counts = await Promise.race([queue.getJobCounts(...QUEUE_STATES), timeout]);
    if (!counts) return;
    // Added, not set: the shards of one queue (KAIROS_QUEUE_SHARDS) are one series, the sum (collect resets first).
    for (const state of QUEUE_STATES) gauge.inc({ queue: queue.name, state }, counts[state] ?? 0);
  } catch {
    // Redis unreachable: the series is absent from this scrape (alert on absence, not on a stale 0).
  } finally {
    clearTimeout(timer);
  }
}

/** The process-wide registry every service serves at /metrics. */
export const metrics = new KairosMetrics({ defaultMetrics: true });
