/**
 * The executor: consumes due executions (and test runs) with a configurable concurrency and turns
 * each into a recorded Run. Delivery is at-least-once: a killed executor's in-flight jobs are
 * retried by BullMQ once their lock expires, under the same run id (X-Service-Run-Id), and the run
 * is recorded once. Each recorded scheduled run is announced on `run-completed`.
 */
import type { Database } from '@kairos/db';
import {
  QUEUES,
  dueRunPayload,
  testRunPayload,
  type DueRunPayload,
  type RunCompletedPayload,
  type ScheduleChangePayload,
  type TestRunPayload,
  type TestRunResult,
} from '@kairos/queue';
import type { Logger } from '@kairos/runtime';
import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { executeDueRun, executeTestRun, type DueRunResult, type ExecuteDeps } from './execute.js';
import { createHttpExecutor, type EgressPolicy, type HttpExecutor } from './http/index.js';
import { RunningLock } from './running-lock.js';

export interface ExecutorOptions {
  db: Database;
  connect: () => Redis;
  prefix: string;
  logger: Logger;
  concurrency: number;
  egress: EgressPolicy;
  masterKey: Buffer;
  userAgent?: string;
  now?: () => Date;
}

export class Executor {
  private readonly connections: Redis[] = [];
  private readonly workers: Worker[] = [];
  private readonly http: HttpExecutor;
  private readonly runCompleted: Queue<RunCompletedPayload>;
  private readonly plannerRuns: Queue<RunCompletedPayload>;
  private readonly scheduleChanges: Queue<ScheduleChangePayload>;
  private readonly deps: ExecuteDeps;

  constructor(private readonly options: ExecutorOptions) {
    const producer = this.connect();
    this.http = createHttpExecutor({
      egress: options.egress,
      userAgent: options.userAgent ?? 'Kairos/0.1 (+scheduler)',
    });
    const queueOptions = {
      connection: producer,
      prefix: options.prefix,
      defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000 },
    };
    this.runCompleted = new Queue<RunCompletedPayload>(QUEUES.runCompleted, queueOptions);
    this.plannerRuns = new Queue<RunCompletedPayload>(QUEUES.plannerRuns, queueOptions);
    this.scheduleChanges = new Queue<ScheduleChangePayload>(QUEUES.scheduleChanges, queueOptions);
    this.deps = {
      db: options.db,
      http: this.http,
      lock: new RunningLock(producer, options.prefix),
      masterKey: options.masterKey,
      now: options.now ?? (() => new Date()),
    };
  }

  private connect(): Redis {
    const connection = this.options.connect();
    connection.on('error', (error) => this.options.logger.warn('redis connection error', { error: error.message }));
    this.connections.push(connection);
    return connection;
  }

  /** Processes one due job (exported for tests through the worker). */
  async processDue(payload: DueRunPayload, attempt: number): Promise<DueRunResult> {
    const result = await executeDueRun(this.deps, payload, attempt);
    if (result.kind === 'recorded') {
      const event: RunCompletedPayload = {
        runId: result.run.id,
        endpointId: result.run.endpointId,
        accountId: result.run.accountId,
        status: result.run.status,
        source: result.run.source,
      };
      await Promise.all([this.runCompleted.add('completed', event), this.plannerRuns.add('completed', event)]);
    } else if (result.reason === 'paused' || result.reason === 'job-not-active' || result.reason === 'archived') {
      // The state that stopped this run also decides the next one: have the scheduler recompute.
      await this.scheduleChanges.add('change', {
        endpointIds: [payload.endpointId],
        reason: `skipped-${result.reason}`,
      });
    }
    this.options.logger.debug('due job processed', {
      runId: payload.runId,
      endpointId: payload.endpointId,
      scheduleVersion: payload.scheduleVersion,
      result: result.kind === 'recorded' ? result.run.status : `skipped:${result.reason}`,
    });
    return result;
  }

  async start(): Promise<void> {
    const { prefix, concurrency, logger } = this.options;
    this.workers.push(
      new Worker<DueRunPayload, unknown>(
        QUEUES.due,
        async (job: Job<DueRunPayload>) => {
          const result = await this.processDue(dueRunPayload.parse(job.data), job.attemptsMade + 1);
          return result.kind === 'recorded' ? { status: result.run.status } : { skipped: result.reason };
        },
        { connection: this.connect(), prefix, concurrency },
      ),
      new Worker<TestRunPayload, TestRunResult>(
        QUEUES.testRuns,
        async (job: Job<TestRunPayload>) => executeTestRun(this.deps, testRunPayload.parse(job.data)),
        { connection: this.connect(), prefix, concurrency: Math.max(1, Math.ceil(concurrency / 4)) },
      ),
    );
    for (const worker of this.workers) {
      worker.on('failed', (job, error) =>
        logger.error('execution job failed', {
          queue: worker.name,
          jobId: job?.id,
          attempt: job?.attemptsMade,
          error: error.message,
        }),
      );
      worker.on('error', (error) => logger.error('worker error', { queue: worker.name, error: error.message }));
    }
    await Promise.all(this.workers.map((worker) => worker.waitUntilReady()));
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
    await this.runCompleted.close();
    await this.plannerRuns.close();
    await this.scheduleChanges.close();
    this.http.close();
    for (const connection of this.connections) connection.disconnect();
  }
}
