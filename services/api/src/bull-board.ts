/**
 * Bull Board at /admin/queues (operators only: see auth/operator.ts), showing every Kairos queue
 * under the configured prefix, each shard of a sharded queue as its own entry (KAIROS_QUEUE_SHARDS). The queues are opened on the first operator request, so an api
 * whose operators never look costs no Redis connections for it.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Database } from '@kairos/db';
import { QUEUES, openShardedQueues, type QueueShards, type RedisConnection } from '@kairos/queue';
import type { Queue } from 'bullmq';
import express, { type Router } from 'express';
import { operatorOnly } from './auth/operator.js';

export const BULL_BOARD_PATH = '/admin/queues';

export function createBullBoardRouter(options: {
  db: Database;
  redis: RedisConnection;
  prefix: string;
  shards: QueueShards;
}): {
  router: Router;
  close(): Promise<void>;
} {
  let queues: Queue[] = [];
  let board: Router | undefined;
  const open = (): Router => {
    if (board) return board;
    queues = openShardedQueues(Object.values(QUEUES), options.redis, options.prefix, options.shards);
    const serverAdapter = new ExpressAdapter();
    serverAdapter.setBasePath(BULL_BOARD_PATH);
    // Bull Board keys queues by name: shards after the first are listed as `{kairos-1}:due`…
    const nameOf = (queue: Queue) => (queue.opts.prefix === options.prefix ? '' : `${queue.opts.prefix}:`);
    createBullBoard({
      queues: queues.map((queue) => new BullMQAdapter(queue, { prefix: nameOf(queue) })),
      serverAdapter,
    });
    board = serverAdapter.getRouter() as Router;
    return board;
  };
  const router = express.Router();
  router.use(BULL_BOARD_PATH, operatorOnly(options.db), (req, res, next) => open()(req, res, next));
  return {
    router,
    close: async () => {
      await Promise.all(queues.map((queue) => queue.close()));
    },
  };
}
