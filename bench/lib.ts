/**
 * Benchmark plumbing: a fresh database, the real built services as child processes, a local target
 * server in its own process, percentiles. Everything targets 127.0.0.1 and every loop is bounded.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PG_BASE = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function summarize(values: number[]): { n: number; p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

export async function freshDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = `${PG_BASE}/${name}`;
  const migrate = spawnSync('node', [join(ROOT, 'scripts/prisma.mjs'), 'deploy'], {
    env: { ...process.env, DATABASE_URL: url },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (migrate.status !== 0) throw new Error('migrations failed');
  return url;
}

export interface ServiceSet {
  children: ChildProcess[];
  stop(): Promise<void>;
}

/** Starts built services (services/<name>/dist/main.js) with the given environment. */
/** BENCH_CPU_PROF=<dir>: each service process writes a V8 CPU profile there when it exits. */
const profileArgs = (name: string): string[] =>
  process.env.BENCH_CPU_PROF
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`,
        `--cpu-prof-name=${name.replace('#', '-')}.cpuprofile`,
      ]
    : [];

export function startServices(names: string[], env: NodeJS.ProcessEnv): ServiceSet {
  const children = names.map((name) =>
    spawn(process.execPath, [...profileArgs(name), join(ROOT, 'services', name.replace(/#\d+$/, ''), 'dist/main.js')], {
      env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  return {
    children,
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null) return resolve();
              const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
              child.once('exit', () => {
                clearTimeout(timer);
                resolve();
              });
              child.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}

/** A minimal keep-alive HTTP target in its own process; resolves with its port. */
export async function startTarget(): Promise<{ port: number; stop(): void }> {
  const source = `
    const http = require('node:http');
    const server = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, {'content-type':'application/json'}); res.end('{"ok":true}'); }); });
    server.keepAliveTimeout = 60000;
    server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) =>
    child.stdout!.once('data', (data: Buffer) => resolve(Number(data.toString()))),
  );
  return { port, stop: () => child.kill('SIGKILL') };
}

export const benchId = () => randomBytes(3).toString('hex');

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
