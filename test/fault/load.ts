/**
 * The steady load of the fault suite: the target server in its own process (target-server.mjs) and
 * an account whose endpoints call it every second, created through the real HTTP API of the
 * supervised api process. Endpoint i calls /e/<i>?s={{scheduledAt}} so the target can tell which
 * planned slot each request belongs to.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createDatabase } from '@kairos/db';
import { createAccount } from '@kairos/db/system';
import { exitOf } from './processes.js';

export type TargetMode = 'ok' | 'hang' | 'reset' | 'nul' | 'invalid-utf8' | 'oversized-headers';

export interface Arrival {
  index: number;
  runId: string;
  scheduledAt: string;
  atMs: number;
}

export interface Target {
  port: number;
  setMode(indexes: number[], mode: TargetMode): Promise<void>;
  /** Every request received so far, in arrival order. */
  arrivals(): Promise<Arrival[]>;
  stop(): Promise<void>;
}

export async function startTarget(): Promise<Target> {
  const child: ChildProcess = fork(join(import.meta.dirname, 'target-server.mjs'), [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: [],
  });
  const reply = <T>(type: string, message?: object): Promise<T> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`target did not answer ${type}`)), 10_000);
      const onMessage = (answer: { type: string }) => {
        if (answer.type !== type && !(type === 'mode' && answer.type === 'mode-set')) return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(answer as T);
      };
      child.on('message', onMessage);
      if (message) child.send(message);
    });
  const { port } = await reply<{ port: number }>('listening');
  return {
    port,
    setMode: async (indexes, mode) => {
      await reply('mode', { type: 'mode', indexes, mode });
    },
    arrivals: async () => (await reply<{ arrivals: Arrival[] }>('arrivals', { type: 'arrivals', from: 0 })).arrivals,
    stop: async () => {
      child.kill('SIGKILL');
      await exitOf(child, 5000);
    },
  };
}

export interface Load {
  accountId: string;
  /** endpointIds[i] calls /e/<i>. */
  endpointIds: string[];
}

export interface LoadAccount {
  accountId: string;
  apiKey: string;
}

/** An enterprise account created with this tree's db package, as `kairos accounts create` does. */
async function createLoadAccount(databaseUrl: string, masterKeyHex: string): Promise<LoadAccount> {
  const db = createDatabase({ url: databaseUrl, poolMax: 2 });
  try {
    const created = await createAccount(
      db,
      { email: `fault-${Date.now()}@example.test`, tier: 'enterprise', apiKeyName: 'fault-suite' },
      { masterKey: Buffer.from(masterKeyHex, 'hex') },
    );
    return { accountId: created.account.id, apiKey: created.apiKey!.raw };
  } finally {
    await db.close();
  }
}

/**
 * `count` endpoints on a 1 s interval with a 2 s timeout (a hanging target costs 2 s, not the
 * default 30). The account is `account` when given (a database on another release's schema needs
 * that release's CLI), else created with this tree's db package; the job and endpoints through the api.
 */
export async function createLoad(options: {
  databaseUrl: string;
  masterKeyHex: string;
  apiPort: number;
  targetPort: number;
  count: number;
  account?: LoadAccount;
}): Promise<Load> {
  const { accountId, apiKey } = options.account ?? (await createLoadAccount(options.databaseUrl, options.masterKeyHex));
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`http://127.0.0.1:${options.apiPort}/api${path}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const answer = (await response.json()) as { id: string };
    if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const job = await post('/jobs', { name: 'Fault suite', description: 'Steady load under faults' });
  const endpointIds: string[] = [];
  for (let index = 0; index < options.count; index++) {
    const endpoint = await post(`/jobs/${job.id}/endpoints`, {
      name: `target ${index}`,
      url: `http://127.0.0.1:${options.targetPort}/e/${index}?s={{scheduledAt}}`,
      method: 'GET',
      baselineIntervalMs: 1000,
      timeoutMs: 2000,
      description: 'Fault suite load: every second',
    });
    endpointIds.push(endpoint.id);
  }
  return { accountId, endpointIds };
}
