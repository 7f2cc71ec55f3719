/**
 * Where one process's CPU per execution goes beside another's ("which cost is left"), from
 * the V8 CPU profiles BENCH_CPU_PROF writes: each sample's time is charged to what ran it (below), the
 * profile is cut to the measurement's window, and each cost is divided by the executions the process
 * delivered in it. Used by `BENCH_ONLY=skeleton` to set Kairos's executor beside the reference shape's.
 *
 * What ran a sample: V8's garbage collector, or the nearest frame with a source that is not Node's own
 * (Node's modules and native frames such as a socket write are charged to the library or the Kairos code
 * that called them: ioredis's writes to ioredis, node:http's client to got), else Node's module
 * (node:http's together: a response arriving); a frame is Kairos's (its package), a library's (its npm
 * package), the benchmark's own script, or promise jobs with no caller (runMicrotasks at the root).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  /** µs, on the monotonic clock (CLOCK_MONOTONIC: process.hrtime's). */
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** One cost by what ran it, in µs of the main thread per execution. */
export interface CostRow {
  cost: string;
  a: number;
  b: number;
}

const NODE_HTTP = /^node:(_http_|net$|internal\/streams|internal\/stream_base|stream$|internal\/http)/;

function costOf(url: string): string | null {
  if (!url) return null;
  const npm = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (npm) return npm[1]!;
  if (NODE_HTTP.test(url)) return "node's HTTP and sockets";
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:').replace(/\/.*$/, '');
  const kairos = /\/(packages|services)\/([^/]+)\//.exec(url);
  if (kairos) return `Kairos: ${kairos[1]}/${kairos[2]}`;
  if (url.includes('/bench/')) return "the benchmark's script";
  return url;
}

/**
 * µs per execution of each cost in the samples a profile took inside `windowUs` (the measurement's
 * window, on the monotonic clock the profile's startTime counts in: lib.ts CoreUse), for a process that
 * delivered `perSecond` executions in it. Cut to the window, not to its busiest seconds: those took in
 * Kairos's executor's start-up too (Prisma compiling its first queries, 3–4 s after the start: 12 µs
 * an execution that the shape's executor, which has no Prisma, never showed; 2026-11-27).
 */
export function costsPerExecution(path: string, perSecond: number, windowUs: [number, number]): Map<string, number> {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // The nearest frame with a source that is not Node's own, else the nearest with any: Node's modules
  // are charged to the library or Kairos code that called them (a socket write to ioredis, pg or got).
  const nearest = (id: number, own: (url: string) => boolean, memo: Map<number, string | undefined>) => {
    const walk = (at: number): string | undefined => {
      if (memo.has(at)) return memo.get(at);
      const { url } = nodes.get(at)!.callFrame;
      const up = parent.get(at);
      const source = url && own(url) ? costOf(url)! : up === undefined ? undefined : walk(up);
      memo.set(at, source);
      return source;
    };
    return walk(id);
  };
  const libraries = new Map<number, string | undefined>();
  const anySource = new Map<number, string | undefined>();
  const sourceOf = (id: number): string | undefined =>
    nearest(id, (url) => !url.startsWith('node:'), libraries) ?? nearest(id, () => true, anySource);
  const chargeOf = (id: number): string | null => {
    const { functionName } = nodes.get(id)!.callFrame;
    if (functionName === '(idle)') return null;
    if (functionName === '(garbage collector)') return 'garbage collection';
    if (functionName === '(program)') return 'V8 (program)';
    return sourceOf(id) ?? (functionName === 'runMicrotasks' ? 'promise jobs (runMicrotasks)' : functionName);
  };
  const [fromUs, toUs] = windowUs;
  const executions = Math.max(1, (perSecond * (toUs - fromUs)) / 1e6);
  const total = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index]!;
    at += delta;
    if (at < fromUs || at >= toUs) return;
    const cost = chargeOf(id);
    if (cost !== null) total.set(cost, (total.get(cost) ?? 0) + delta / executions);
  });
  return total;
}

/** Two processes' costs side by side, the largest difference first. */
export function compareCosts(a: Map<string, number>, b: Map<string, number>): CostRow[] {
  const costs = new Set([...a.keys(), ...b.keys()]);
  return [...costs]
    .map((cost) => ({ cost, a: a.get(cost) ?? 0, b: b.get(cost) ?? 0 }))
    .sort((x, y) => y.a - y.b - (x.a - x.b));
}
