/**
 * The response rules the benchmark gives endpoints with BENCH_RULES=1 (bench/run.ts insertEndpoints)
 * and bench/rule-evaluation.ts measures: three successWhen conditions that hold for the target's
 * `{"ok":true}` and two rules that do not match it, so every run pays for the evaluation and the
 * record statement's rule columns while the schedule stays the baseline's.
 */
export const BENCH_RESPONSE_RULES = {
  successWhen: {
    status: ['2xx'],
    all: [
      { path: '$.ok', op: 'eq', value: true },
      { path: '$durationMs', op: 'lt', value: 30_000 },
      { path: '$.ok', op: 'exists' },
    ],
  },
  rules: [
    { name: 'slow', when: { all: [{ path: '$durationMs', op: 'gt', value: 30_000 }] }, then: { intervalMs: 60_000 } },
    { name: 'not ok', when: { any: [{ path: '$.ok', op: 'ne', value: true }] }, then: { analyse: true } },
  ],
};
