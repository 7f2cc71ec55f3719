/**
 * Process plumbing shared by the supervisor and fault tests: free loopback ports, the service
 * processes a `pnpm start` has spawned (read from /proc, so it works for any start.mjs, old or new),
 * bounded waits and a clean stop.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A free loopback port for a service started later (freePorts). */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/**
 * `count` distinct free loopback ports for services started later, from 20000–29999: below the
 * kernel's ephemeral range (32768–60999 by default), so no other process's port-0 listener or
 * outgoing connection is handed one between this release and the service's bind. Ports from the
 * ephemeral range were (seen in clean-clone CI: the api's port answered as another test's worker
 * health server, and every POST met its 405). All are held until the last is found, so they differ.
 */
export async function freePorts(count: number): Promise<number[]> {
  const held: net.Server[] = [];
  try {
    for (let attempt = 0; held.length < count && attempt < 200; attempt += 1) {
      const server = net.createServer();
      const port = 20_000 + Math.floor(Math.random() * 10_000);
      const bound = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (bound) held.push(server);
    }
    if (held.length < count) throw new Error(`no ${count} free ports in 20000–29999`);
    return held.map((server) => (server.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/** Direct children of `parentPid` whose command line names services/<service>/, by service. */
export function serviceChildren(parentPid: number): Map<string, number> {
  const found = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent pid; the command name (field 2) may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parentPid) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const match = /services\/(api|scheduler|executor|planner)\//.exec(cmdline);
      if (match) found.set(match[1]!, Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Polls `check` every `everyMs` until it returns a value other than undefined/false, or throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; Date.now() < deadline && attempt < 100_000; attempt++) {
    const value = await Promise.resolve(check()).catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** GET http://127.0.0.1:<port><path> answers 200 (within 2 s). */
export async function answers200(port: number, path: string): Promise<boolean> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2000) });
  await response.arrayBuffer();
  return response.status === 200;
}

/** Resolves with the exit code (or signal) once `child` has exited; SIGKILL after `timeoutMs`. */
export function exitOf(child: ChildProcess, timeoutMs: number): Promise<number | string> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode ?? child.signalCode!);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? signal ?? -1);
    });
  });
}

/** SIGKILLs every pid still alive (a failed test must not leave services behind). */
export function killAll(pids: Iterable<number>): void {
  for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}
