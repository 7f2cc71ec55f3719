import { z } from 'zod';
import type { RouteRegistry } from '../http/route.js';
import type { ApiDeps } from './deps.js';

const probeResult = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    checks: z.record(z.string(), z.enum(['ok', 'unavailable'])).optional(),
  })
  .meta({ id: 'ProbeResult' });

async function check(probe: () => Promise<unknown>, timeoutMs: number): Promise<'ok' | 'unavailable'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
    return 'ok';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

export function registerSystemRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const tags = ['System'];
  routes.add(
    {
      method: 'get',
      path: '/healthz',
      operationId: 'liveness',
      summary: 'Liveness: the process serves requests',
      tags,
      public: true,
      responses: { 200: { description: 'Alive', schema: probeResult } },
    },
    async () => ({ body: { status: 'ok' } }),
  );
  routes.add(
    {
      method: 'get',
      path: '/readyz',
      operationId: 'readiness',
      summary: 'Readiness: PostgreSQL and Redis are reachable',
      tags,
      public: true,
      responses: {
        200: { description: 'Ready', schema: probeResult },
        503: { description: 'A dependency is unreachable', schema: probeResult },
      },
    },
    async () => {
      const [postgres, redis] = await Promise.all([
        check(() => deps.db.pool.query('SELECT 1'), 2000),
        check(() => deps.redis.ping(), 2000),
      ]);
      const ready = postgres === 'ok' && redis === 'ok';
      return { status: ready ? 200 : 503, body: { status: ready ? 'ok' : 'unavailable', checks: { postgres, redis } } };
    },
  );
}
