/**
 * Bull Board at /admin/queues (operators only: see auth/operator.ts), showing every Kairos queue
 * under the configured prefix. The queues are opened on the first operator request, so an api
 * whose operators never look costs no Redis connections for it.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Database } from '@kairos/db';
import { QUEUES } from '@kairos/queue';
import { Queue } from 'bullmq';
import express, { type Router } from 'express';
import type { Redis } from 'ioredis';
import { operatorOnly } from './auth/operator.js';

export const BULL_BOARD_PATH = '/admin/queues';

export function createBullBoardRouter(options: { db: Database; redis: Redis; prefix: string }): {
  router: Router;
  close(): Promise<void>;
} {
  let queues: Queue[] = [];
  let board: Router | undefined;
  const open = (): Router => {
    if (board) return board;
    queues = Object.values(QUEUES).map(
      (name) => new Queue(name, { connection: options.redis, prefix: options.prefix }),
    );
    const serverAdapter = new ExpressAdapter();
    serverAdapter.setBasePath(BULL_BOARD_PATH);
    createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue)), serverAdapter });
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
