#!/usr/bin/env node
/**
 * `pnpm start`: finds or starts the stores (scripts/stores.mjs: PostgreSQL and Redis at their URLs,
 * or embedded ones under .kairos/data/ when none is configured and none answers on the default
 * ports), applies pending migrations (creating the database if missing), then runs every service
 * that exists as its own process — as in production, where each is a separate pool — under the
 * supervisor (scripts/supervisor.mjs): a service that exits unexpectedly is restarted with a backoff
 * (1 s doubling to 30 s); one that crashes 5 times in 2 minutes stops the whole (exit 1). Embedded
 * stores run under their own supervisor, restarted the same way. SIGINT / SIGTERM stop every service
 * gracefully, then the embedded stores (a second signal kills them at once).
 *
 * KAIROS_START_FROM_SOURCE=true runs services/<s>/src/main.ts through tsx instead of the built
 * dist/main.js, so a fresh clone (tests, CI) needs no build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EX_CONFIG, StoresRefused, planStores, prepareEmbeddedStores } from './stores.mjs';
import { superviseServices } from './supervisor.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVICES = ['api', 'scheduler', 'executor', 'planner'];
const fromSource = process.env.KAIROS_START_FROM_SOURCE === 'true';

let stores;
try {
  const plan = await planStores(process.env);
  stores = await prepareEmbeddedStores(plan, process.env);
} catch (error) {
  console.error(`kairos: ${error.message}`);
  process.exit(error instanceof StoresRefused ? EX_CONFIG : 1);
}

const env = {
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/kairos',
  REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
  ...stores.urls,
};

let storesSupervisor;
let servicesSupervisor;
let stopping = false;

async function stopAll(code) {
  if (stopping) {
    // A second signal: kill at once.
    servicesSupervisor?.stop(code);
    storesSupervisor?.stop(code);
    return;
  }
  stopping = true;
  const servicesCode = servicesSupervisor ? await servicesSupervisor.stop(code) : code;
  if (storesSupervisor) await storesSupervisor.stop(code);
  stores.removeState();
  process.exit(code || servicesCode);
}
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

if (stores.services.length > 0) {
  storesSupervisor = superviseServices({ services: stores.services, env, cwd: root, stopTimeoutMs: 30_000 });
  // A store that keeps crashing stops the whole.
  storesSupervisor.exited.then((code) => {
    if (!stopping) {
      console.error('kairos: an embedded store gave up; stopping every service');
      stopAll(code || 1);
    }
  });
  try {
    await stores.ready();
  } catch (error) {
    console.error(
      `kairos: ${error.message} (its log is under ${join(stores.where.postgres?.log ?? stores.where.redis.log, '..')})`,
    );
    await stopAll(1);
  }
  stores.writeState(process.pid);
}
console.error(`kairos: stores: ${stores.describe()}`);

const migrate = spawnSync('node', [join(root, 'scripts/prisma.mjs'), 'deploy'], {
  env,
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (migrate.status !== 0) {
  console.error('kairos: database migrations failed; is PostgreSQL reachable at DATABASE_URL?');
  await stopAll(1);
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

if (!stopping) {
  const services = SERVICES.map(commandOf).filter(Boolean);
  // tsx resolves from the working directory: run the services from the repository root.
  servicesSupervisor = superviseServices({ services, env, cwd: root });
  const code = await servicesSupervisor.exited;
  if (!stopping) await stopAll(code);
}
