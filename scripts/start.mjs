#!/usr/bin/env node
/**
 * `pnpm start`: applies pending migrations (creating the database if missing), then runs every
 * service that exists as its own process — as in production, where each is a separate pool.
 * One service exiting stops the others (the supervisor, e.g. Kubernetes, restarts the whole).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVICES = ['api', 'scheduler', 'executor', 'planner'];

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

const children = new Map();
let stopping = false;

function stopAll(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children.values()) child.kill('SIGTERM');
  const deadline = setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
  }, 15_000);
  deadline.unref();
  const waitAll = setInterval(() => {
    if (children.size === 0) {
      clearInterval(waitAll);
      process.exit(code);
    }
  }, 50);
}

for (const service of SERVICES) {
  const entry = join(root, 'services', service, 'dist/main.js');
  if (!existsSync(entry)) continue;
  const child = spawn(process.execPath, ['--enable-source-maps', entry], { env, stdio: 'inherit' });
  children.set(service, child);
  child.on('exit', (code, signal) => {
    children.delete(service);
    if (!stopping) {
      console.error(`kairos: ${service} exited (${signal ?? code}); stopping the others`);
      stopAll(code || 1);
    }
  });
}
console.error(`kairos: started ${[...children.keys()].join(', ')}`);

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));
