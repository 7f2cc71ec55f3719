/**
 * The cost of response rules on the executor's hot path, in one process, bounded (a few seconds):
 *   node --conditions=source --import tsx bench/rule-evaluation.ts
 * 1. Per evaluation: an endpoint with three successWhen conditions and two rules (the benchmark's
 *    BENCH_RULES=1 shape, bench/rule-shape.ts) judged and matched over a small JSON body, as
 *    services/executor/src/response-rules.ts does for every call; and an endpoint without rules.
 * 2. The path and the comparison: the hand-written resolver (packages/core/src/rules/path.ts)
 *    against jsonpath-plus, and dequal (conditions.ts uses it) against a hand-written comparison.
 * 3. The recorder's plan of a success's next run (nextRunAfter, packages/db/src/executions.ts), which
 *    the executor makes beside the rules for every successful scheduled run.
 * Each figure is the median of five rounds of N calls, in µs per call. Results: docs/benchmarks.md.
 */
import {
  applyRules,
  compileResponseRules,
  judgeRun,
  parsePath,
  resolvePath,
  type ResponseRulesConfig,
} from '@kairos/core';
import { nextRunAfter, type ExecutionTarget } from '@kairos/db/system';
import { dequal } from 'dequal/lite';
import { JSONPath } from 'jsonpath-plus';
import { runOutcome } from '../test/runs-fixtures.js';
import { BENCH_RESPONSE_RULES } from './rule-shape.js';

const ROUNDS = 5;
const N = 100_000;

/** Median µs per call of `fn` over ROUNDS rounds of `n` calls. */
function measure(name: string, fn: () => unknown, n = N): number {
  for (let i = 0; i < n / 10; i += 1) fn(); // warm up
  const perCall: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i += 1) fn();
    perCall.push(Number(process.hrtime.bigint() - started) / 1000 / n);
  }
  perCall.sort((a, b) => a - b);
  const median = perCall[Math.floor(ROUNDS / 2)]!;
  console.log(`${name.padEnd(58)} ${median.toFixed(3)} µs  (rounds ${perCall.map((v) => v.toFixed(3)).join(', ')})`);
  return median;
}

const body = {
  ok: true,
  backlog: 42,
  state: 'draining',
  queues: [
    { name: 'orders', depth: 12 },
    { name: 'mail', depth: 30 },
  ],
  updatedAt: '2026-11-30T10:02:00Z',
};
const run = {
  statusCode: 200,
  durationMs: 35,
  responseBody: body,
  responseFormat: 'json',
  responseTruncated: false,
  status: 'success' as const,
  errorKind: null,
  errorMessage: null,
};

const compiled = compileResponseRules({
  ...(BENCH_RESPONSE_RULES as unknown as Pick<ResponseRulesConfig, 'successWhen' | 'rules'>),
  minIntervalMs: null,
  maxIntervalMs: null,
});
const none = compileResponseRules({ successWhen: null, rules: null, minIntervalMs: null, maxIntervalMs: null });
const endedAt = new Date();

console.log(`Node ${process.version}, ${N} calls a round, median of ${ROUNDS} rounds`);
measure('judgeRun + applyRules, 3 conditions + 2 rules', () => {
  const verdict = judgeRun(compiled, run);
  return applyRules(compiled, { ...run, status: verdict.status }, endedAt);
});
measure('judgeRun + applyRules, no rules', () => {
  const verdict = judgeRun(none, run);
  return applyRules(none, { ...run, status: verdict.status }, endedAt);
});

const parsed = parsePath('$.queues[1].depth');
if (!parsed.ok) throw new Error(parsed.message);
const path = parsed.path;
measure('path $.queues[1].depth: hand-written resolvePath', () => resolvePath(path, run));
measure('path $.queues[1].depth: jsonpath-plus JSONPath (wrap: false)', () =>
  JSONPath({ path: '$.queues[1].depth', json: body, wrap: false }),
);

/** The hand-written alternative to dequal, for the comparison only. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => jsonEqual(item, b[index]));
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every(
    (key) =>
      Object.hasOwn(b, key) && jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

const left = { name: 'orders', depth: 12, tags: ['a', 'b'] };
const right = { name: 'orders', depth: 12, tags: ['a', 'b'] };
measure('equality of a small object: hand-written', () => jsonEqual(left, right));
measure('equality of a small object: dequal/lite', () => dequal(left, right));

/** An endpoint at a 1 s interval, healthy, its last run 1 s ago: what admission reads for it. */
const plannedAt = new Date();
const target: ExecutionTarget = {
  id: '0195a3c0-0000-7000-8000-000000000001',
  accountId: '0195a3c0-0000-7000-8000-000000000002',
  jobStatus: 'active',
  archivedAt: null,
  scheduleVersion: 7,
  nextRunId: '0195a3c0-0000-7000-8000-000000000003',
  nextRunAt: plannedAt,
  nextRunSource: 'baseline-interval',
  pausedUntil: null,
  url: 'http://127.0.0.1:8080/health',
  method: 'GET',
  headers: null,
  sealedHeaders: null,
  body: null,
  timeoutMs: 30_000,
  maxResponseSizeKb: 256,
  retry: null,
  propagateTrace: false,
  lastRunAt: new Date(plannedAt.getTime() - 1000),
  lastScheduledAt: new Date(plannedAt.getTime() - 1000),
  encryptedSigningKey: null,
  encryptedPreviousSigningKey: null,
  previousSigningKeyExpiresAt: null,
  tier: 'pro',
  quotaOverrides: null,
  aiSchedulingEnabled: false,
  accountDisabled: false,
  hostLimits: null,
  responseRules: null,
  hintIntervalOrigin: null,
  hintOneShotOrigin: null,
  jitterMs: 0,
  scheduleDirty: false,
  failing: false,
  baselineIntervalMs: 1000,
  baselineCron: null,
  timezone: 'UTC',
  minIntervalMs: null,
  maxIntervalMs: null,
  failureCount: 0,
  createdAt: new Date(plannedAt.getTime() - 3_600_000),
  hintIntervalMs: null,
  hintIntervalExpiresAt: null,
  hintOneShotAt: null,
  hintOneShotExpiresAt: null,
  missedRuns: null,
  activeFrom: null,
  activeUntil: null,
  blackouts: null,
};
/** The planned run, recorded a success. */
const succeeded = {
  ...runOutcome({ accountId: target.accountId, endpointId: target.id }, plannedAt),
  id: target.nextRunId!,
};
measure("nextRunAfter: a success's next run (1 s interval)", () =>
  nextRunAfter(target, succeeded, target.scheduleVersion, new Date()),
);
