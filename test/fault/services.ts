/**
 * Service processes one by one, without the supervisor: each service of a release tree (this
 * repository, or an earlier release's tree for the upgrade test) started from its sources through
 * tsx against a given database and Redis, on its own health port, so a test can run two releases
 * side by side, replace one process at a time, or point fresh processes at a restored database.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { answers200, exitOf, waitFor } from './processes.js';
import { MASTER_KEY_HEX, type ServiceName } from './system.js';

export const ROOT = join(import.meta.dirname, '../..');

const HEALTH_PORT_VARIABLE: Record<ServiceName, string> = {
  api: 'PORT',
  scheduler: 'SCHEDULER_HEALTH_PORT',
  executor: 'EXECUTOR_HEALTH_PORT',
  planner: 'PLANNER_HEALTH_PORT',
};
const OUTPUT_KEPT_CHARS = 6000;

export interface ServiceProcess {
  service: ServiceName;
  /** Which tree it runs from (a label for messages: "new", "previous"). */
  release: string;
  pid: number;
  port: number;
  isReady(): Promise<boolean>;
  output(): string;
  /** SIGTERM (a graceful stop, as a rolling update sends) or SIGKILL; resolves once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** The environment every test service gets: its stores, loopback only, private targets allowed. */
function serviceEnv(databaseUrl: string, redisUrl: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_OPTIONS: '',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    KAIROS_MASTER_KEY: MASTER_KEY_HEX,
    KAIROS_ALLOW_PRIVATE_TARGETS: 'true',
    KAIROS_WEB_DIR: '',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ...extra,
  };
}

/** `scripts/prisma.mjs deploy` of the tree at `root`: its migrations applied (the database created if missing). */
export function migrate(root: string, databaseUrl: string): void {
  const result = spawnSync(process.execPath, [join(root, 'scripts/prisma.mjs'), 'deploy'], {
    cwd: root,
    env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: databaseUrl },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.status !== 0) {
    throw new Error(`migrations of ${root} failed (${result.status}): ${result.stderr}\n${result.stdout}`);
  }
}

/**
 * An enterprise account and its api key from `kairos accounts create --json` of the tree at `root`:
 * the account rows that release writes, on the schema it migrated.
 */
export function createAccountWithCli(
  root: string,
  databaseUrl: string,
  redisUrl: string,
): { accountId: string; apiKey: string } {
  const result = spawnSync(
    process.execPath,
    [
      '--conditions=source',
      '--import',
      'tsx',
      join(root, 'scripts/kairos.ts'),
      'accounts',
      'create',
      '--email',
      `fault-${Date.now()}@example.test`,
      '--tier',
      'enterprise',
      '--json',
    ],
    { cwd: root, env: serviceEnv(databaseUrl, redisUrl, {}), encoding: 'utf8', timeout: 60_000 },
  );
  if (result.status !== 0) {
    throw new Error(`kairos accounts create of ${root} failed (${result.status}): ${result.stderr}`);
  }
  const created = JSON.parse(result.stdout) as { accountId: string; apiKey: string };
  return { accountId: created.accountId, apiKey: created.apiKey };
}

/** Starts one service of the tree at `root` from its sources; resolves once it has spawned (see waitReady). */
export function startService(options: {
  root: string;
  release: string;
  service: ServiceName;
  port: number;
  databaseUrl: string;
  redisUrl: string;
  env?: Record<string, string>;
}): ServiceProcess {
  const entry = join(options.root, 'services', options.service, 'src/main.ts');
  const child: ChildProcess = spawn(
    process.execPath,
    ['--enable-source-maps', '--conditions=source', '--import', 'tsx', entry],
    {
      // tsx and the workspace packages resolve from the tree's own node_modules.
      cwd: options.root,
      env: serviceEnv(options.databaseUrl, options.redisUrl, {
        [HEALTH_PORT_VARIABLE[options.service]]: String(options.port),
        ...options.env,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const keep = (data: Buffer) => (output = (output + data.toString()).slice(-OUTPUT_KEPT_CHARS));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return {
    service: options.service,
    release: options.release,
    pid: child.pid!,
    port: options.port,
    isReady: () => answers200(options.port, '/readyz').catch(() => false),
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exitOf(child, 60_000);
    },
  };
}

/** Waits until every process answers /readyz (a process that exits meanwhile fails the wait with its output). */
export async function waitReady(processes: ServiceProcess[], timeoutMs: number): Promise<void> {
  await waitFor(
    `${processes.map((p) => `${p.release} ${p.service}`).join(', ')} to be ready`,
    async () => {
      for (const p of processes) if (!(await p.isReady())) return false;
      return true;
    },
    timeoutMs,
    250,
  ).catch((error: Error) => {
    throw new Error(
      `${error.message}\n${processes.map((p) => `--- ${p.release} ${p.service} ---\n${p.output()}`).join('\n')}`,
    );
  });
}
