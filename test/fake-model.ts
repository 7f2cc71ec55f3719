/**
 * A fake model server for tests: speaks the Anthropic Messages API (POST /v1/messages) over real
 * HTTP on 127.0.0.1 and plays scripted conversations. Point the SDK at it with
 * `baseURL: fake.baseURL` (or ANTHROPIC_BASE_URL) and `apiKey: fake.apiKey`.
 *
 * Stateless like the real API: the step of a conversation is the number of assistant messages in
 * the request, so `play([turn0, turn1, …])` answers the n-th call of every conversation with turn n.
 * `script(fn)` decides per request (e.g. from the context the planner sent). Each turn is a
 * message (text / tool_use blocks, usage) or an HTTP error (status + error type), optionally late.
 * It also misbehaves on demand, as a real model or its API can: an answer cut off by max_tokens
 * (`cutOff`), an answer without `usage` (`usage: null`), a huge text, any number of tool calls in
 * one answer, a 429 with a long `retry-after` (`rateLimited`), an error with a huge message, or no
 * answer at all (`hang`, until the client gives up).
 * Requests are checked the way the real API would refuse them (auth, model, max_tokens, every
 * tool_result answering a tool_use of the previous assistant turn) and recorded for assertions.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; name: string; input: unknown; id?: string };

export interface FakeTurn {
  content?: FakeBlock[];
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal';
  /** null: the answer carries no `usage` at all. */
  usage?: { input_tokens: number; output_tokens: number } | null;
  /** An HTTP error instead of a message (e.g. 500, 529 overloaded). */
  status?: number;
  errorType?: string;
  /** The error's message (default `fake <status>`). */
  errorMessage?: string;
  /** Headers of the error (default `retry-after-ms: 10`, which keeps the client's retries fast). */
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer: the request stays open until the client gives up (its timeout or abort). */
  hang?: boolean;
}

interface MessageParam {
  role: 'user' | 'assistant';
  content: string | Array<Record<string, unknown>>;
}

export interface FakeRequest {
  headers: Record<string, string | string[] | undefined>;
  body: {
    model: string;
    max_tokens: number;
    system?: unknown;
    tools?: Array<{ name: string; description?: string; input_schema: unknown }>;
    messages: MessageParam[];
  };
  /** Assistant messages so far: 0 for the first call of a conversation. */
  step: number;
  /** Text of the first user message (the planner's context). */
  context: string;
  /** The tool results this request answers (empty on the first call). */
  toolResults: Array<{ tool_use_id: string; content: string; is_error?: boolean; tool: string }>;
}

export type FakeScript = (request: FakeRequest) => FakeTurn | Promise<FakeTurn>;

export interface FakeModel {
  baseURL: string;
  apiKey: string;
  /** Every request received (valid ones), in arrival order. */
  requests: FakeRequest[];
  /** Most requests in flight at once so far. */
  maxConcurrent: number;
  play(turns: FakeTurn[]): void;
  script(script: FakeScript): void;
  close(): Promise<void>;
}

export const toolUse = (name: string, input: unknown = {}): FakeBlock => ({ type: 'tool_use', name, input });
export const text = (value: string): FakeBlock => ({ type: 'text', text: value });
/** A turn calling tools (stop_reason tool_use). */
export const callTools = (...blocks: FakeBlock[]): FakeTurn => ({ content: blocks, stopReason: 'tool_use' });
/** The planner's final report. */
export const submitAnalysis = (
  reasoning: string,
  confidence: 'low' | 'medium' | 'high' = 'high',
  nextAnalysisInMinutes = 30,
): FakeTurn => callTools(toolUse('submit_analysis', { reasoning, confidence, nextAnalysisInMinutes }));
export const overloaded = (): FakeTurn => ({ status: 529, errorType: 'overloaded_error' });
export const serverError = (): FakeTurn => ({ status: 500, errorType: 'api_error' });
/** A 429 asking the client to wait `retryAfterSeconds` (the `retry-after` header, seconds). */
export const rateLimited = (retryAfterSeconds: number): FakeTurn => ({
  status: 429,
  errorType: 'rate_limit_error',
  headers: { 'retry-after': String(retryAfterSeconds) },
});
/** An answer that ran into max_tokens: whatever it holds (a half-written tool call too) is cut off. */
export const cutOff = (...blocks: FakeBlock[]): FakeTurn => ({ content: blocks, stopReason: 'max_tokens' });

const DEFAULT_USAGE = { input_tokens: 120, output_tokens: 30 };

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (response.destroyed) return;
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

const apiError = (type: string, message: string) => ({ type: 'error', error: { type, message } });

function contentText(content: MessageParam['content']): string {
  if (typeof content === 'string') return content;
  return content.flatMap((block) => (block.type === 'text' ? [String(block.text)] : [])).join('\n');
}

/** Why the real API would refuse this body (null: it is well-formed). */
function validate(body: FakeRequest['body']): string | null {
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  for (let index = 0; index < body.messages.length; index += 1) {
    const message = body.messages[index]!;
    if (message.role !== (index % 2 === 0 ? 'user' : 'assistant')) return `messages.${index}: roles must alternate`;
    if (message.role !== 'user' || typeof message.content === 'string' || index === 0) continue;
    const previous = body.messages[index - 1]!;
    const asked = new Set(
      (Array.isArray(previous.content) ? previous.content : []).flatMap((block) =>
        block.type === 'tool_use' ? [String(block.id)] : [],
      ),
    );
    const answered = message.content.filter((block) => block.type === 'tool_result').map((b) => String(b.tool_use_id));
    if (answered.length !== asked.size || answered.some((id) => !asked.has(id))) {
      return `messages.${index}: each tool_use must be answered by exactly one tool_result`;
    }
  }
  return null;
}

function describeRequest(body: FakeRequest['body'], headers: FakeRequest['headers']): FakeRequest {
  const messages = body.messages;
  const step = messages.filter((message) => message.role === 'assistant').length;
  const last = messages[messages.length - 1]!;
  const previous = messages[messages.length - 2];
  const toolNames = new Map<string, string>();
  if (previous && Array.isArray(previous.content)) {
    for (const block of previous.content)
      if (block.type === 'tool_use') toolNames.set(String(block.id), String(block.name));
  }
  const toolResults = Array.isArray(last.content)
    ? last.content
        .filter((block) => block.type === 'tool_result')
        .map((block) => ({
          tool_use_id: String(block.tool_use_id),
          content: typeof block.content === 'string' ? block.content : JSON.stringify(block.content),
          ...(block.is_error ? { is_error: true } : {}),
          tool: toolNames.get(String(block.tool_use_id)) ?? '?',
        }))
    : [];
  return { headers, body, step, context: contentText(messages[0]!.content), toolResults };
}

export async function startFakeModel(options: { apiKey?: string } = {}): Promise<FakeModel> {
  const apiKey = options.apiKey ?? 'sk-ant-test-fake-model-key';
  let script: FakeScript = () => ({ content: [text('nothing to do')], stopReason: 'end_turn' });
  let inFlight = 0;
  let ids = 0;
  const requests: FakeRequest[] = [];
  const fake: FakeModel = {
    baseURL: '',
    apiKey,
    requests,
    maxConcurrent: 0,
    play(turns) {
      script = (request) => turns[request.step] ?? { content: [text('done')], stopReason: 'end_turn' };
    },
    script(next) {
      script = next;
    },
    close: () => close(),
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'POST' || request.url?.split('?')[0] !== '/v1/messages') {
      return sendJson(response, 404, apiError('not_found_error', `no route ${request.method} ${request.url}`));
    }
    const bearer = request.headers.authorization;
    if (request.headers['x-api-key'] !== apiKey && bearer !== `Bearer ${apiKey}`) {
      return sendJson(response, 401, apiError('authentication_error', 'invalid x-api-key'));
    }
    let body: FakeRequest['body'];
    try {
      body = JSON.parse(await readBody(request)) as FakeRequest['body'];
    } catch {
      return sendJson(response, 400, apiError('invalid_request_error', 'body is not JSON'));
    }
    const problem = validate(body);
    if (problem) return sendJson(response, 400, apiError('invalid_request_error', problem));
    const described = describeRequest(body, request.headers);
    requests.push(described);
    inFlight += 1;
    fake.maxConcurrent = Math.max(fake.maxConcurrent, inFlight);
    try {
      const turn = await script(described);
      if (turn.delayMs || turn.hang) {
        // A client that gives up (timeout) ends the wait: no timer outlives the test.
        await new Promise<void>((resolve) => {
          const timer = turn.hang ? undefined : setTimeout(resolve, turn.delayMs);
          response.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      if (turn.status) {
        // retry-after-ms keeps the SDK's own retries fast in tests.
        const message = turn.errorMessage ?? `fake ${turn.status}`;
        return sendJson(
          response,
          turn.status,
          apiError(turn.errorType ?? 'api_error', message),
          turn.headers ?? { 'retry-after-ms': '10' },
        );
      }
      const content = (turn.content ?? []).map((block) =>
        block.type === 'tool_use' ? { ...block, id: block.id ?? `toolu_fake_${(ids += 1)}` } : block,
      );
      const hasToolUse = content.some((block) => block.type === 'tool_use');
      sendJson(response, 200, {
        id: `msg_fake_${(ids += 1)}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content,
        stop_reason: turn.stopReason ?? (hasToolUse ? 'tool_use' : 'end_turn'),
        stop_sequence: null,
        ...(turn.usage === null ? {} : { usage: turn.usage ?? DEFAULT_USAGE }),
      });
    } finally {
      inFlight -= 1;
    }
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: Error) =>
      sendJson(response, 500, apiError('api_error', `fake model script failed: ${error.message}`)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function close(): Promise<void> {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  }
  return fake;
}
