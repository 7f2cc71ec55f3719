#!/usr/bin/env node
/**
 * `pnpm start`: applies pending migrations (creating the database if missing), then runs every
 * service that exists as its own process — as in production, where each is a separate pool — under
 * the supervisor (scripts/supervisor.mjs): a service that exits unexpectedly is restarted with a
 * backoff (1 s doubling to 30 s); one that crashes 5 times in 2 minutes stops the whole (exit 1).
 * SIGINT / SIGTERM stop every service gracefully (a second signal kills them at once).
 *
 * KAIROS_START_FROM_SOURCE=true runs services/<s>/src/main.ts through tsx instead of the built
 * dist/main.js, so a fresh clone (tests, CI) needs no build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { superviseServices } from './supervisor.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVICES = ['api', 'scheduler', 'executor', 'planner'];
const fromSource = process.env.KAIROS_START_FROM_SOURCE === 'true';

const env = {
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/kairos',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
};

const migrate = spawnSync('node', [join(root, 'scripts/prisma.mjs'), 'deploy'], {
  env,
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (migrate.status !== 0) {
  console.error('kairos: database migrations failed; is PostgreSQL reachable at DATABASE_URL?');
  process.exit(1);
}

function commandOf(service) {
  if (fromSource) {
    const entry = join(root, 'services', service, 'src/main.ts');
    const args = ['--enable-source-maps', '--conditions=source', '--import', 'tsx', entry];
    return existsSync(entry) ? { name: service, command: process.execPath, args } : undefined;
  }
  const entry = join(root, 'services', service, 'dist/main.js');
  return existsSync(entry)
    ? { name: service, command: process.execPath, args: ['--enable-source-maps', entry] }
    : undefined;
}

const services = SERVICES.map(commandOf).filter(Boolean);
// tsx resolves from the working directory: run the services from the repository root.
const supervisor = superviseServices({ services, env, cwd: root });

process.on('SIGINT', () => supervisor.stop(0));
process.on('SIGTERM', () => supervisor.stop(0));
process.exit(await supervisor.exited);
