/** What the CLI prints for people: tables, plans, runs. `--json` prints the API's own answers instead. */
import type { Schemas } from '@kairos/client';

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** Columns padded to their widest cell. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

const SIGNS = { create: '+', update: '~', delete: '-' } as const;
const show = (value: unknown) => (value === undefined ? 'absent' : JSON.stringify(value));

/** A plan as people read it: one line per change, the fields of updates, then the counts. */
export function describePlan(plan: Schemas['ConfigPlan']): string {
  if (plan.changes.length === 0) return `No changes: ${plan.unchanged} resources are as the document says.`;
  const lines = plan.changes.flatMap((change) => [
    `  ${SIGNS[change.action]} ${change.kind} ${change.address}`,
    ...change.fields.map((field) => `      ${field.field}: ${show(field.before)} → ${show(field.after)}`),
  ]);
  const count = (action: keyof typeof SIGNS) => plan.changes.filter((change) => change.action === action).length;
  lines.push(
    `Plan: ${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete; ` +
      `${plan.unchanged} unchanged.`,
  );
  return lines.join('\n');
}

export function describeRun(run: Schemas['Run']): string {
  return (
    `${run.startedAt}  ${run.status.padEnd(7)} ${run.statusCode ?? '---'}  ${String(run.durationMs).padStart(6)} ms  ` +
    `${run.source}${run.errorMessage ? `  ${run.errorMessage}` : ''}  ${run.id}`
  );
}

export function describeSchedule(endpoint: Schemas['Endpoint']): string {
  return endpoint.baselineCron
    ? `cron ${endpoint.baselineCron}${endpoint.timezone === 'UTC' ? '' : ` ${endpoint.timezone}`}`
    : `every ${endpoint.baselineIntervalMs} ms`;
}
