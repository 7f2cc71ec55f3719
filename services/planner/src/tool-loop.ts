/**
 * The tool-use loop of one analysis: send the context, run the tools the model calls, send their
 * results back, until the model calls submit_analysis (or ends without tools), the step limit is
 * reached, the account's budget is used up, an answer comes back incomplete, or the deadline passes
 * (the caller's abort signal). What the loop saw is kept in `record` (tokens, the model's text),
 * which the caller reads even when the loop throws: tokens spent on a failed analysis still count.
 *
 * An answer is judged by its stop reason first. `tool_use` and `end_turn` go on; an answer cut off
 * by max_tokens (or stopped for any other reason) runs none of its tool calls, since one of them may
 * be half-written (a `pause_until` whose reason or time was cut mid-way), and ends the analysis as
 * incomplete.
 *
 * Bounds (PLANNER_LIMITS, packages/core/src/planner/tools.ts, enforced by `runAnswer`, the tools of
 * analysis-tools.ts): at most 8 tool calls of one answer run (each of the seven tools and
 * submit_analysis once), of them at most 4 writes (each write tool once), and at most 8 writes per
 * analysis (room to correct a refused proposal twice over). Calls past a bound are answered
 * "not run" and listed in the session. Writes are staged and applied only when the analysis
 * completes (analysis-tools.ts), so a step limit or any failure applies nothing.
 *
 * Budget (packages/db/src/ai-budget.ts): before each call its worst case is reserved in the
 * account's count, and after it the real usage is charged, so parallel analyses of one account end
 * below its limit + one call's tokens. The worst case: the request's UTF-8 bytes (a token is at
 * least one byte) + 1,000 tokens of framing + max_tokens.
 *
 * Usage: an answer without `usage` is charged an estimate, a token per 3 bytes sent and received
 * (English and JSON run at 3.5–4.5 bytes a token, so the estimate leans high), and marked as such.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { PlannerToolDefinition } from '@kairos/core';
import type { ToolCall, ToolResult } from './analysis-tools.js';
import { MalformedAnswerError } from './model.js';
import type { MessageRequest } from './model-call.js';

type MessageParam = Anthropic.MessageParam;
type ContentBlockParam = Anthropic.ContentBlockParam;
type ToolResultBlockParam = Anthropic.ToolResultBlockParam;

/** What the loop saw: tokens (estimated when an answer had no usage) and the model's text per answer. */
export interface LoopRecord {
  inputTokens: number;
  outputTokens: number;
  tokensEstimated: boolean;
  /** The text of each answer that had some, in order. */
  texts: string[];
}

export const newLoopRecord = (): LoopRecord => ({ inputTokens: 0, outputTokens: 0, tokensEstimated: false, texts: [] });

export interface TokenBudget {
  /** Reserves a call's worst case; false: the budget is used up (the call is not made). */
  reserve(tokens: number): Promise<boolean>;
  /** Replaces the reservation by what the call used. */
  charge(reserved: number, used: number): Promise<void>;
}

export interface ToolLoopOptions {
  createMessage: (request: MessageRequest) => Promise<Anthropic.Message>;
  model: string;
  system: string;
  context: string;
  tools: PlannerToolDefinition[];
  maxSteps: number;
  maxTokensPerResponse: number;
  budget: TokenBudget;
  /** Runs (or refuses, past the bounds) the tool calls of one answer, one result per call, in order. */
  runAnswer: (calls: ToolCall[]) => Promise<ToolResult[]>;
  /** True once submit_analysis was accepted. */
  isSubmitted: () => boolean;
  record: LoopRecord;
}

export type ToolLoopOutcome =
  | { kind: 'submitted'; steps: number }
  /** The model answered without calling a tool: its text is the reasoning. */
  | { kind: 'ended'; steps: number; text: string }
  | { kind: 'step-limit'; steps: number }
  | { kind: 'budget-exhausted'; steps: number }
  /** The answer stopped for another reason than tool_use / end_turn: nothing of it ran. */
  | { kind: 'incomplete'; steps: number; stopReason: string; toolNames: string[] };

/** Tokens of the tool-use system prompt and message framing, beyond the request's own bytes. */
const FRAMING_TOKENS = 1000;
const BYTES_PER_ESTIMATED_TOKEN = 3;

const utf8Bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** Tokens of one answer: its usage, or an estimate from the bytes sent and received. */
function tokensOf(
  response: Anthropic.Message,
  requestBytes: number,
): { input: number; output: number; estimated: boolean } {
  const usage = response.usage as Partial<Anthropic.Usage> | undefined;
  const counted = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
  const input = counted(usage?.input_tokens);
  const output = counted(usage?.output_tokens);
  if (input === null || output === null) {
    return {
      input: Math.ceil(requestBytes / BYTES_PER_ESTIMATED_TOKEN),
      output: Math.ceil(utf8Bytes(response.content ?? []) / BYTES_PER_ESTIMATED_TOKEN),
      estimated: true,
    };
  }
  const cached = (counted(usage?.cache_creation_input_tokens) ?? 0) + (counted(usage?.cache_read_input_tokens) ?? 0);
  return { input: input + cached, output, estimated: false };
}

function answerText(content: Anthropic.ContentBlock[]): string {
  return content
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n')
    .trim();
}

export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopOutcome> {
  const { record, budget } = options;
  const messages: MessageParam[] = [{ role: 'user', content: options.context }];
  for (let step = 1; step <= options.maxSteps; step += 1) {
    const request: MessageRequest = {
      model: options.model,
      max_tokens: options.maxTokensPerResponse,
      system: options.system,
      tools: options.tools as Anthropic.Tool[],
      messages,
    };
    const requestBytes = utf8Bytes(request);
    const reserved = requestBytes + FRAMING_TOKENS + options.maxTokensPerResponse;
    if (!(await budget.reserve(reserved))) return { kind: 'budget-exhausted', steps: step - 1 };
    let response: Anthropic.Message;
    try {
      response = await options.createMessage(request);
    } catch (error) {
      // A failed call is not billed; its reservation is given back.
      await budget.charge(reserved, 0);
      throw error;
    }
    const tokens = tokensOf(response, requestBytes);
    record.inputTokens += tokens.input;
    record.outputTokens += tokens.output;
    record.tokensEstimated ||= tokens.estimated;
    await budget.charge(reserved, tokens.input + tokens.output);
    if (!Array.isArray(response.content)) throw new MalformedAnswerError("the model's answer has no content");

    const text = answerText(response.content);
    if (text !== '') record.texts.push(text);
    const toolUses = response.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    if (response.stop_reason !== 'tool_use' && response.stop_reason !== 'end_turn') {
      return {
        kind: 'incomplete',
        steps: step,
        stopReason: String(response.stop_reason),
        toolNames: toolUses.map((use) => use.name),
      };
    }
    if (toolUses.length === 0) return { kind: 'ended', steps: step, text };

    const assistant: ContentBlockParam[] = response.content.flatMap((block): ContentBlockParam[] => {
      if (block.type === 'text') return [{ type: 'text', text: block.text }];
      if (block.type === 'tool_use') return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
      return [];
    });
    // In order: write tools on one endpoint stage in the order the model gave them.
    const outcomes = await options.runAnswer(toolUses.map((use) => ({ name: use.name, input: use.input })));
    const results: ToolResultBlockParam[] = toolUses.map((use, index) => ({
      type: 'tool_result',
      tool_use_id: use.id,
      content: outcomes[index]!.content,
      ...(outcomes[index]!.isError ? { is_error: true } : {}),
    }));
    if (options.isSubmitted()) return { kind: 'submitted', steps: step };
    messages.push({ role: 'assistant', content: assistant }, { role: 'user', content: results });
  }
  return { kind: 'step-limit', steps: options.maxSteps };
}
