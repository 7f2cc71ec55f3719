/**
 * The tool-use loop of one analysis: send the context, run the tools the model calls, send their
 * results back, until the model calls submit_analysis (or ends without tools), the step limit is
 * reached, the account's remaining budget is used up, or the deadline passes (the caller's abort
 * signal). Token usage is summed over every response into `usage`, which the caller reads even when
 * the loop throws: tokens spent on a failed analysis still count against the budget.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { PlannerToolDefinition } from '@kairos/core';
import type { ToolResult } from './analysis-tools.js';

type MessageParam = Anthropic.MessageParam;
type ContentBlockParam = Anthropic.ContentBlockParam;
type ToolResultBlockParam = Anthropic.ToolResultBlockParam;

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ToolLoopOptions {
  client: Anthropic;
  model: string;
  system: string;
  context: string;
  tools: PlannerToolDefinition[];
  maxSteps: number;
  maxTokensPerResponse: number;
  /** Tokens this analysis may use before it stops (the account's remaining budget). */
  tokenAllowance: number;
  signal: AbortSignal;
  /** Epoch ms when the analysis must end (each request's timeout is what remains). */
  deadline: number;
  call: (name: string, input: unknown) => Promise<ToolResult>;
  /** True once submit_analysis was accepted. */
  isSubmitted: () => boolean;
  usage: TokenUsage;
}

export type ToolLoopOutcome =
  | { kind: 'submitted'; steps: number }
  /** The model answered without calling a tool: its text is the reasoning. */
  | { kind: 'ended'; steps: number; text: string }
  | { kind: 'step-limit'; steps: number }
  | { kind: 'budget-exhausted'; steps: number };

const usedTokens = (usage: TokenUsage) => usage.inputTokens + usage.outputTokens;

export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopOutcome> {
  const { client, usage } = options;
  const messages: MessageParam[] = [{ role: 'user', content: options.context }];
  for (let step = 1; step <= options.maxSteps; step += 1) {
    if (usedTokens(usage) >= options.tokenAllowance) return { kind: 'budget-exhausted', steps: step - 1 };
    const response = await client.messages.create(
      {
        model: options.model,
        max_tokens: options.maxTokensPerResponse,
        system: options.system,
        tools: options.tools as Anthropic.Tool[],
        messages,
      },
      { signal: options.signal, timeout: Math.max(1, options.deadline - Date.now()) },
    );
    usage.inputTokens +=
      response.usage.input_tokens +
      (response.usage.cache_creation_input_tokens ?? 0) +
      (response.usage.cache_read_input_tokens ?? 0);
    usage.outputTokens += response.usage.output_tokens;

    const assistant: ContentBlockParam[] = [];
    const toolUses: Anthropic.ToolUseBlock[] = [];
    for (const block of response.content) {
      if (block.type === 'text') assistant.push({ type: 'text', text: block.text });
      if (block.type === 'tool_use') {
        assistant.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
        toolUses.push(block);
      }
    }
    if (toolUses.length === 0) {
      const text = response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
      return { kind: 'ended', steps: step, text: text.trim() };
    }
    const results: ToolResultBlockParam[] = [];
    // Sequentially: write tools on one endpoint must apply in the order the model gave them.
    for (const use of toolUses) {
      const result = await options.call(use.name, use.input);
      results.push({
        type: 'tool_result',
        tool_use_id: use.id,
        content: result.content,
        ...(result.isError ? { is_error: true } : {}),
      });
    }
    if (options.isSubmitted()) return { kind: 'submitted', steps: step };
    messages.push({ role: 'assistant', content: assistant }, { role: 'user', content: results });
  }
  return { kind: 'step-limit', steps: options.maxSteps };
}
