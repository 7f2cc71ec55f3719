/**
 * The fault suite's own PostgreSQL cluster and Redis server. The machine's 5432 and 6379 are shared
 * with other tests running at the same time, so the suite never restarts or flushes them: it starts
 * a throw-away cluster (initdb as the postgres user, trust auth, data in a temp dir) and a
 * redis-server child without persistence, each on a free loopback port, and removes both in stop().
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { exitOf, freePort, waitFor } from './processes.js';

const PG_BIN = process.env.KAIROS_FAULT_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** PostgreSQL refuses to run as root: as root the tools run as the postgres user, else as ourselves. */
const isRoot = process.getuid?.() === 0;

function asPostgres(command: string, args: string[], timeoutMs = 60_000): string {
  const binary = join(PG_BIN, command);
  if (!existsSync(binary)) throw new Error(`${binary} is missing: install PostgreSQL 15 or set KAIROS_FAULT_PG_BIN`);
  const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
  return execFileSync(file, argv, {
    encoding: 'utf8',
    timeout: timeoutMs,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface PrivatePostgres {
  port: number;
  baseUrl: string;
  restart(): void;
  stop(): void;
}

export async function startPostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'kairos-fault-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  if (isRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  let running = false;
  const stop = () => {
    if (running) {
      try {
        asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'], 30_000);
      } catch {
        // Already stopped; the data directory goes anyway.
      }
      running = false;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    // fsync off: a test cluster trades durability for speed; the sockets stay in the temp dir.
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
    running = true;
  } catch (error) {
    stop();
    throw error;
  }
  const baseUrl = `postgresql://postgres@127.0.0.1:${port}`;
  return {
    port,
    baseUrl,
    // -l as at start: without it the new postmaster inherits our stdout pipe and the call never returns.
    restart: () => asPostgres('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-m', 'fast', '-w', 'restart']),
    stop,
  };
}

/** Waits until the cluster accepts queries again (after a restart). */
export async function waitForPostgres(baseUrl: string, timeoutMs: number): Promise<void> {
  await waitFor(
    'PostgreSQL to accept connections',
    async () => {
      const client = new pg.Client({ connectionString: `${baseUrl}/postgres`, connectionTimeoutMillis: 1000 });
      await client.connect();
      await client.end();
      return true;
    },
    timeoutMs,
  );
}

export interface PrivateRedis {
  port: number;
  url: string;
  /** Kills the server and starts an empty one on the same port (what losing Redis looks like). */
  restartEmpty(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let server: ChildProcess | undefined;
  const launch = async () => {
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
      { stdio: 'ignore' },
    );
    server = child;
    await waitFor(
      'redis-server to answer',
      async () => {
        const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        try {
          await probe.connect();
          // hz 100 as in production (docker-compose.yml): delayed jobs fire within ~12 ms p99, not ~97.
          await probe.config('SET', 'hz', '100');
          return true;
        } finally {
          probe.disconnect();
        }
      },
      10_000,
      100,
    );
  };
  const kill = async () => {
    if (!server) return;
    server.kill('SIGKILL');
    await exitOf(server, 5000);
    server = undefined;
  };
  await launch();
  return {
    port,
    url,
    restartEmpty: async () => {
      await kill();
      await launch();
    },
    stop: kill,
  };
}
