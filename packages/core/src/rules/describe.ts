/**
 * The rule in force on an endpoint, in words, for the scheduling explanation (API, MCP, UI):
 * "runs every 60 s because rule 'backlog high' matched at 2026-11-30T10:02:00.000Z".
 */

/** A whole number of the largest unit that fits: 60 s, 5 min, 2 h, 1 d; else milliseconds. */
export function formatIntervalMs(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  for (const [size, name] of units) if (ms >= size && ms % size === 0) return `${ms / size} ${name}`;
  return `${ms} ms`;
}

export function describeRuleState(
  state: { rule: string; intervalMs: number; since: string },
  formatTime: (iso: string) => string = (iso) => iso,
): string {
  return `runs every ${formatIntervalMs(state.intervalMs)} because rule '${state.rule}' matched at ${formatTime(state.since)}`;
}
