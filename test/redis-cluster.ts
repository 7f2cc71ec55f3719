/**
 * A throw-away Redis Cluster for tests: three masters and three replicas on loopback
 * ports, no persistence, in a temp dir, built with `redis-cli --cluster create`. Every server is a
 * child of this process, killed by stop() and, should the test process die first, on its exit.
 * A missing redis-server fails the suite (never a skip).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** 7400–7499: outside the ephemeral range and the services' ports; each node also needs port + 10000 (its bus). */
const PORT_RANGE = { first: 7400, last: 7499 };
const NODES = 6;

export interface RedisCluster {
  /** `127.0.0.1:port,…` as REDIS_CLUSTER_NODES takes it. */
  nodes: string;
  ports: number[];
  /** A plain connection to one node (CLUSTER and per-node commands). */
  node(port: number): Redis;
  /** The ports of the current masters. */
  masters(): Promise<number[]>;
  /** The port of the master serving `key`'s slot. */
  masterOf(key: string): Promise<number>;
  /** Promotes a replica of the master on `port` with CLUSTER FAILOVER; resolves once the cluster agrees. */
  failover(port: number): Promise<number>;
  stop(): void;
}

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

async function freeRun(): Promise<number[]> {
  for (let first = PORT_RANGE.first; first + NODES - 1 <= PORT_RANGE.last; first += NODES) {
    const ports = Array.from({ length: NODES }, (_, index) => first + index);
    const checks = await Promise.all(ports.flatMap((port) => [portFree(port), portFree(port + 10_000)]));
    if (checks.every(Boolean)) return ports;
  }
  throw new Error(`no ${NODES} free ports (and bus ports) in ${PORT_RANGE.first}–${PORT_RANGE.last}`);
}

async function until<T>(what: string, probe: () => Promise<T | null | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${String(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startRedisCluster(): Promise<RedisCluster> {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    execFileSync('redis-cli', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      'redis-server and redis-cli are required for the Redis Cluster tests (apt-get install redis-server)',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'kairos-redis-cluster-'));
  const ports = await freeRun();
  const children: ChildProcess[] = [];
  const connections = new Map<number, Redis>();
  const stop = () => {
    for (const connection of connections.values()) connection.disconnect();
    connections.clear();
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  const node = (port: number) => {
    let connection = connections.get(port);
    if (!connection) {
      connection = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1, lazyConnect: false });
      connection.on('error', () => undefined);
      connections.set(port, connection);
    }
    return connection;
  };
  try {
    for (const port of ports) {
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes'];
      args.push('--cluster-config-file', join(dir, `nodes-${port}.conf`), '--dir', dir);
      // hz 100 as in production (docker-compose.yml): delayed jobs fire within ~12 ms p99.
      args.push('--save', '', '--appendonly', 'no', '--daemonize', 'no', '--hz', '100');
      // Fast failure detection keeps the failover test short (default 15 s).
      args.push('--cluster-node-timeout', '2000');
      children.push(spawn('redis-server', args, { stdio: 'ignore' }));
    }
    await Promise.all(
      ports.map((port) => until(`redis on ${port}`, async () => (await node(port).ping()) === 'PONG', 10_000)),
    );
    execFileSync(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes'],
      { stdio: 'ignore', timeout: 30_000 },
    );
    // State ok, six nodes known, and every replica attached and synced (a failover needs one).
    await until(
      'cluster_state:ok on every node, three replicas in sync',
      async () => {
        let replicas = 0;
        for (const port of ports) {
          const info = String(await node(port).call('CLUSTER', 'INFO'));
          if (!info.includes('cluster_state:ok') || !info.includes('cluster_known_nodes:6')) return false;
          const replication = String(await node(port).info('replication'));
          if (replication.includes('role:slave')) {
            if (!replication.includes('master_link_status:up')) return false;
            replicas += 1;
          }
        }
        return replicas === NODES / 2;
      },
      30_000,
    );
  } catch (error) {
    stop();
    throw error;
  }

  const masters = async () => {
    const lines = String(await node(ports[0]!).call('CLUSTER', 'NODES'))
      .trim()
      .split('\n');
    return (
      lines
        // A master serving slots (fields past the 8th are its slot ranges).
        .filter(
          (line) => line.split(' ')[2]!.includes('master') && !line.includes('fail') && line.split(' ').length > 8,
        )
        .map((line) => Number(line.split(' ')[1]!.split('@')[0]!.split(':')[1]))
    );
  };
  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ports,
    node,
    masters,
    async masterOf(key) {
      const slot = Number(await node(ports[0]!).call('CLUSTER', 'KEYSLOT', key));
      const ranges = (await node(ports[0]!).call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      if (!range) throw new Error(`slot ${slot} is not served`);
      return Number(range[2][1]);
    },
    async failover(port) {
      const id = String(await node(port).call('CLUSTER', 'MYID'));
      const replicas = String(await node(port).call('CLUSTER', 'REPLICAS', id))
        .trim()
        .split('\n');
      const replica = Number(replicas[0]!.split(' ')[1]!.split('@')[0]!.split(':')[1]);
      await node(replica).call('CLUSTER', 'FAILOVER');
      await until(
        `the replica on ${replica} to take over from ${port}`,
        async () => {
          const role = (await node(replica).call('ROLE')) as [string];
          const info = String(await node(replica).call('CLUSTER', 'INFO'));
          return role[0] === 'master' && info.includes('cluster_state:ok') && (await masters()).includes(replica);
        },
        20_000,
      );
      return replica;
    },
    stop() {
      process.removeListener('exit', stop);
      stop();
    },
  };
}
