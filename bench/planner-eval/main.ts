/**
 * pnpm eval:planner: the planner evaluation (suite.ts), printed as a table. With ANTHROPIC_API_KEY
 * or ANTHROPIC_BASE_URL set it runs against that model (PLANNER_MODEL names it; a base URL without
 * a key sends the key "none", which local servers ignore); otherwise against the scripted model.
 * EVAL_DAYS sets the virtual days per scenario (default 1).
 */
import { formatTable, runSuite } from './suite.js';

const key = process.env.ANTHROPIC_API_KEY || undefined;
const baseURL = process.env.ANTHROPIC_BASE_URL || undefined;
const days = Number(process.env.EVAL_DAYS ?? '1');
if (!Number.isFinite(days) || days <= 0 || days > 30) {
  console.error('EVAL_DAYS must be a number of days from 1 to 30');
  process.exit(2);
}
const model =
  key || baseURL
    ? { apiKey: key ?? 'none', baseURL, name: process.env.PLANNER_MODEL || 'claude-sonnet-5-5' }
    : undefined;

console.log(
  model
    ? `planner evaluation against ${model.name}${baseURL ? ` at ${baseURL}` : ''}, ${days} virtual day(s) per scenario`
    : `planner evaluation with the scripted model, ${days} virtual day(s) per scenario`,
);
const started = Date.now();
const result = await runSuite({
  days,
  ...(model ? { model } : {}),
  onResult: (row) => console.log(`  ${row.scenario} / ${row.mode}: ${row.runs} runs, ${row.modelCalls} model calls`),
});
console.log(`\n${formatTable(result)}\n\n(${((Date.now() - started) / 1000).toFixed(1)} s)`);
