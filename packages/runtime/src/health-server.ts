/**
 * The workers' operations port (scheduler 3001, executor 3002, planner 3003): a bare node:http
 * server with
 *   GET /healthz  liveness: the event loop answers (200 while the process lives, even when draining);
 *   GET /readyz   readiness: every check passes within its timeout (200), else 503 with which failed;
 *                 503 as soon as shutdown begins, so a rollout waits for a replacement;
 *   GET /metrics  Prometheus text format; `Authorization: Bearer <KAIROS_METRICS_TOKEN>` when set.
 * The api serves the same three paths on its own port (its readiness route lives in the api).
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from './logger.js';
import { metrics, type QueueCountSource } from './metrics.js';

export type CheckStatus = 'ok' | 'unavailable';
export type ReadinessCheck = () => Promise<unknown>;

export interface HealthServerOptions {
  port: number;
  host?: string;
  /** Named readiness checks, e.g. { postgres: () => pool.query('SELECT 1'), redis: () => redis.ping() }. */
  checks: Record<string, ReadinessCheck>;
  checkTimeoutMs?: number;
  /** Served at /metrics (default: the process-wide registry). */
  registry?: Registry;
  /** When set, /metrics requires `Authorization: Bearer <token>`. */
  metricsToken?: string | undefined;
}

export interface HealthServer {
  port: number;
  /** Readiness turns 503 from now on (shutdown has begun). */
  markShuttingDown(): void;
  close(): Promise<void>;
}

/** Each check's status, a check not settled within `timeoutMs` counting as unavailable. */
export async function runReadinessChecks(
  checks: Record<string, ReadinessCheck>,
  timeoutMs: number,
): Promise<{ ready: boolean; checks: Record<string, CheckStatus> }> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, CheckStatus]> => {
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<CheckStatus>((resolve) => {
        timer = setTimeout(() => resolve('unavailable'), timeoutMs);
      });
      const settled = check().then(
        (): CheckStatus => 'ok',
        (): CheckStatus => 'unavailable',
      );
      const status = await Promise.race([settled, expired]);
      clearTimeout(timer);
      return [name, status];
    }),
  );
  return { ready: entries.every(([, status]) => status === 'ok'), checks: Object.fromEntries(entries) };
}

function isAuthorized(req: IncomingMessage, token: string | undefined): boolean {
  if (!token) return true;
  const given = Buffer.from(req.headers.authorization ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Writes the registry in Prometheus text format (401 without the token when one is configured). */
export async function serveMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  { registry = metrics.registry, token }: { registry?: Registry; token?: string | undefined } = {},
): Promise<void> {
  if (!isAuthorized(req, token)) {
    res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' });
    res.end('metrics require Authorization: Bearer <KAIROS_METRICS_TOKEN>\n');
    return;
  }
  const body = await registry.metrics();
  res.writeHead(200, { 'content-type': registry.contentType });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const { checks, checkTimeoutMs = 2000, registry = metrics.registry, metricsToken } = options;
  let shuttingDown = false;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const handle = async () => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { status: 'method not allowed' });
      if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
      if (path === '/readyz') {
        if (shuttingDown) return sendJson(res, 503, { status: 'unavailable', checks: { shutdown: 'unavailable' } });
        const result = await runReadinessChecks(checks, checkTimeoutMs);
        return sendJson(res, result.ready ? 200 : 503, {
          status: result.ready ? 'ok' : 'unavailable',
          checks: result.checks,
        });
      }
      if (path === '/metrics') return serveMetrics(req, res, { registry, token: metricsToken });
      return sendJson(res, 404, { status: 'not found' });
    };
    handle().catch(() => {
      if (!res.headersSent) sendJson(res, 500, { status: 'error' });
      else res.destroy();
    });
  });
  // Probes open a connection each time; never let one keep the process alive on exit.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    markShuttingDown: () => {
      shuttingDown = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface ServiceHealthOptions extends HealthServerOptions {
  /** `service` label on every series of the process-wide registry (api, scheduler, executor, planner). */
  service: string;
  /** Queues whose depth this process reports. */
  queues?: QueueCountSource[];
  logger: Logger;
}

/** A worker's operations port: labels the registry, reports its queues, serves the three paths. */
export async function startServiceHealth(options: ServiceHealthOptions): Promise<HealthServer> {
  const { service, queues = [], logger, ...serverOptions } = options;
  metrics.registry.setDefaultLabels({ service });
  const unwatch = metrics.watchQueues(queues);
  const server = await startHealthServer(serverOptions);
  logger.info('health server listening', { port: server.port, paths: ['/healthz', '/readyz', '/metrics'] });
  return {
    ...server,
    close: async () => {
      unwatch();
      await server.close();
    },
  };
}
