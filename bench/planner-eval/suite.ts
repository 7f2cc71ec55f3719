/**
 * The planner evaluation: every scenario (scenarios.ts) under every mode (baseline only; the model
 * on every analysis; the model writing rules), on a virtual clock, and the table of what each did.
 * The model: a scripted one (policies.ts) on the fake model server unless a real one is configured
 * (ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL, with PLANNER_MODEL), reached the same way.
 */
import { createModelClient } from '../../services/planner/src/model.js';
import type { MessageRequest } from '../../services/planner/src/model-call.js';
import { startFakeModel } from '../../test/fake-model.js';
import { scriptedModel } from './policies.js';
import { SCENARIOS, type Scenario } from './scenarios.js';
import { MODES, simulate, type Figures, type Mode } from './simulate.js';

export interface SuiteOptions {
  days?: number;
  /** A real model: its key, base URL and name; absent: the scripted model. */
  model?: { apiKey: string; baseURL?: string | undefined; name: string };
  scenarios?: Scenario[];
  modes?: Mode[];
  onResult?: (figures: Figures) => void;
}

export interface SuiteResult {
  figures: Figures[];
  model: string;
  scripted: boolean;
  /** Tool lists the model was offered, per mode (the plumbing the scripted runs assert). */
  toolsOffered: Partial<Record<Mode, string[][]>>;
}

export async function runSuite(options: SuiteOptions = {}): Promise<SuiteResult> {
  const days = options.days ?? 1;
  const fake = options.model ? null : await startFakeModel();
  fake?.script(scriptedModel);
  const settings = options.model ?? { apiKey: fake!.apiKey, baseURL: fake!.baseURL, name: 'scripted-policy' };
  const client = createModelClient({
    apiKey: settings.apiKey,
    baseURL: settings.baseURL,
    model: settings.name,
    maxRetries: 2,
  });
  const toolsOffered: SuiteResult['toolsOffered'] = {};
  const figures: Figures[] = [];
  try {
    for (const scenario of options.scenarios ?? SCENARIOS) {
      for (const mode of options.modes ?? MODES) {
        const result = await simulate(scenario, mode, {
          days,
          model: settings.name,
          createMessage: async (request: MessageRequest) => {
            const offered = request.tools?.map((tool) => ('name' in tool ? tool.name : '')) ?? [];
            const seen = (toolsOffered[mode] ??= []);
            if (!seen.some((list) => list.join() === offered.join())) seen.push(offered);
            return client.messages.create(request, { maxRetries: 2 });
          },
        });
        figures.push(result);
        options.onResult?.(result);
      }
    }
  } finally {
    await fake?.close();
  }
  return { figures, model: settings.name, scripted: fake !== null, toolsOffered };
}

const MODE_NAMES: Record<Mode, string> = {
  baseline: 'baseline only',
  analyse: 'model on every analysis',
  rules: 'model writing rules',
};

const minutes = (ms: number | null) => (ms === null ? 'never' : `${(ms / 60_000).toFixed(1)} min`);

/** The worst reaction of a row: most runs, longest time (null: a change never reached). */
export function worstReaction(figures: Figures): { runs: number | null; ms: number | null } {
  if (figures.reactionRuns.some((runs) => runs === null)) return { runs: null, ms: null };
  return {
    runs: Math.max(0, ...(figures.reactionRuns as number[])),
    ms: Math.max(0, ...(figures.reactionMs as number[])),
  };
}

export const perDay = (figures: Figures, value: number) => value / figures.days;

/** The table as Markdown (docs/benchmarks.md shows the scripted run's). */
export function formatTable(result: SuiteResult): string {
  const lines = [
    '| Scenario | Mode | Reaction, runs (worst) | Reaction, time (worst) | Calls / day | Model calls / endpoint-day | Tokens / endpoint-day | Cadence match |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const row of result.figures) {
    const worst = worstReaction(row);
    lines.push(
      `| ${row.scenario} | ${MODE_NAMES[row.mode]} | ${worst.runs ?? 'never'} | ${minutes(worst.ms)} | ` +
        `${Math.round(perDay(row, row.runs))} | ${perDay(row, row.modelCalls).toFixed(1)} | ` +
        `${Math.round(perDay(row, row.tokens))} | ${(row.cadenceMatch * 100).toFixed(1)} % |`,
    );
  }
  const total = (mode: Mode, pick: (row: Figures) => number) =>
    result.figures.filter((row) => row.mode === mode).reduce((sum, row) => sum + perDay(row, pick(row)), 0);
  const endpoints = new Set(result.figures.map((row) => row.scenario)).size;
  const analyse = total('analyse', (row) => row.modelCalls) / endpoints;
  const rules = total('rules', (row) => row.modelCalls) / endpoints;
  lines.push(
    '',
    `Model: ${result.scripted ? 'scripted policy (fake Messages API server)' : result.model}. ` +
      `Model calls per endpoint-day, all scenarios: ${analyse.toFixed(1)} analysing on every trigger, ` +
      `${rules.toFixed(1)} writing rules (${rules === 0 ? '∞' : (analyse / rules).toFixed(1)}× fewer).`,
  );
  return lines.join('\n');
}
