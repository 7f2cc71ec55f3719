/**
 * The scripted model of the planner evaluation: a policy per scenario, answering through the real
 * Messages API shape (the fake model server, test/fake-model.ts) what a model that follows the
 * endpoint's description would answer. Two ways of working, told apart by the tools offered:
 *  - without propose_rules ("model on every analysis"): read the latest response, set the interval
 *    (or pause) the description asks for with a short-lived hint, and look again in 15 minutes;
 *  - with propose_rules ("model writing rules"): write the description down as rules once (with an
 *    `analyse` rule for what it cannot foresee), look again in a day, and rewrite the rules when a
 *    rule wakes it because the response changed shape.
 * Usage is reported as a token per 4 bytes sent and received.
 */
import type { FakeBlock, FakeRequest, FakeTurn } from '../../test/fake-model.js';

const MINUTE = 60_000;
export const ANALYSE_EVERY_MINUTES = 15;
const HINT_TTL_MINUTES = 60;

interface Seen {
  statusCode: number | null;
  status: string;
  body: Record<string, unknown> | null;
  now: Date;
  /** The planner's own rules in force (null: none, or AI rules not offered). */
  yours: { rules: { name: string; when: unknown }[] | null } | null;
}

function section(context: string, heading: string): string | null {
  const start = context.indexOf(heading);
  if (start < 0) return null;
  const line = context.slice(context.indexOf('\n', start) + 1).split('\n')[0];
  return line ?? null;
}

function read(request: FakeRequest): Seen {
  const context = request.context;
  const now = new Date(/Current time: (\S+)/.exec(context)![1]!);
  const latest = JSON.parse(section(context, 'Latest run (body') ?? 'null') as {
    statusCode: number | null;
    status: string;
    body: string;
  } | null;
  let body: Record<string, unknown> | null;
  try {
    body = latest?.body ? (JSON.parse(latest.body) as Record<string, unknown>) : null;
  } catch {
    body = null;
  }
  const rules = section(context, 'Response rules (');
  const yours = rules ? ((JSON.parse(rules) as { yours: Seen['yours'] }).yours ?? null) : null;
  return { statusCode: latest?.statusCode ?? null, status: latest?.status ?? 'success', body, now, yours };
}

const call = (name: string, input: unknown): FakeBlock => ({ type: 'tool_use', name, input });
const submit = (reasoning: string, minutes: number): FakeBlock =>
  call('submit_analysis', { reasoning, confidence: 'high', nextAnalysisInMinutes: minutes });
const intervalHint = (intervalMs: number, reason: string, ttlMinutes = HINT_TTL_MINUTES): FakeBlock =>
  call('propose_interval', { intervalMs, ttlMinutes, reason });

type Decision = { intervalMs: number } | { pauseMs: number } | { siblings: true };

/** What the description asks for, given the latest response (and, when read, the siblings'). */
function decide(endpoint: string, seen: Seen, siblingDown: boolean | null): Decision {
  const body = seen.body ?? {};
  switch (endpoint) {
    case 'Order backlog': {
      const backlog = Number(body.backlog);
      return { intervalMs: backlog > 100 ? MINUTE : backlog === 0 ? 60 * MINUTE : 10 * MINUTE };
    }
    case 'Payments health':
      return { intervalMs: seen.status === 'failed' ? MINUTE : 5 * MINUTE };
    case 'Partner sync':
      return seen.statusCode === 429 ? { pauseMs: 10 * MINUTE } : { intervalMs: 2 * MINUTE };
    case 'Queue depth': {
      const depth = Number(body.depth ?? (body.queue as Record<string, unknown> | undefined)?.depth ?? 0);
      return { intervalMs: depth > 1000 ? MINUTE : 10 * MINUTE };
    }
    case 'Catalog import':
      if (seen.status !== 'failed') return { intervalMs: 5 * MINUTE };
      if (siblingDown === null) return { siblings: true };
      return { intervalMs: siblingDown ? 30 * MINUTE : 5 * MINUTE };
    case 'Import trigger':
      return { intervalMs: body.ok === false ? 2 * MINUTE : 10 * MINUTE };
    default:
      return { intervalMs: 10 * MINUTE };
  }
}

const when = (all: unknown[]) => ({ all });
const cond = (path: string, op: string, value?: unknown) => (value === undefined ? { path, op } : { path, op, value });

/** The rules (and successWhen) the description comes to, given the response's current shape. */
function rulesFor(endpoint: string, seen: Seen): { rules: unknown[]; successWhen?: unknown } {
  switch (endpoint) {
    case 'Order backlog':
      return {
        rules: [
          { name: 'backlog high', when: when([cond('$.backlog', 'gt', 100)]), then: { intervalMs: MINUTE } },
          { name: 'backlog empty', when: when([cond('$.backlog', 'eq', 0)]), then: { intervalMs: 60 * MINUTE } },
          { name: 'backlog field gone', when: when([cond('$.backlog', 'missing')]), then: { analyse: true } },
        ],
      };
    case 'Payments health':
      return { rules: [{ name: 'down', when: { runStatus: 'failed' }, then: { intervalMs: MINUTE } }] };
    case 'Partner sync':
      return { rules: [{ name: 'rate limited', when: { status: [429] }, then: { pauseMs: 10 * MINUTE } }] };
    case 'Queue depth': {
      const path = seen.body && 'queue' in seen.body ? '$.queue.depth' : '$.depth';
      return {
        rules: [
          { name: 'deep queue', when: when([cond(path, 'gt', 1000)]), then: { intervalMs: MINUTE } },
          { name: 'depth field gone', when: when([cond(path, 'missing')]), then: { analyse: true } },
        ],
      };
    }
    case 'Catalog import':
      return {
        rules: [{ name: 'dependency down', when: { status: [502] }, then: { intervalMs: 30 * MINUTE } }],
      };
    case 'Import trigger':
      return {
        successWhen: { all: [cond('$.ok', 'ne', false)] },
        rules: [{ name: 'import failed', when: { runStatus: 'failed' }, then: { intervalMs: 2 * MINUTE } }],
      };
    default:
      return { rules: [] };
  }
}

/** Whether the planner's rules still read the response (a field they name is gone). */
function rulesStillFit(seen: Seen): boolean {
  const text = JSON.stringify(seen.yours?.rules ?? []);
  const paths = [...text.matchAll(/"path":"\$\.([a-z.]+)"/g)].map((match) => match[1]!);
  return paths.every((path) => {
    let value: unknown = seen.body;
    for (const key of path.split('.')) value = (value as Record<string, unknown> | null)?.[key];
    return value !== undefined;
  });
}

function endpointName(context: string): string {
  return /"name":"([^"]+)"/.exec(section(context, 'Endpoint under analysis') ?? '')?.[1] ?? '';
}

function usage(request: FakeRequest, content: FakeBlock[]) {
  return {
    input_tokens: Math.ceil(Buffer.byteLength(JSON.stringify(request.body)) / 4),
    output_tokens: Math.ceil(Buffer.byteLength(JSON.stringify(content)) / 4),
  };
}

const answer = (request: FakeRequest, content: FakeBlock[]): FakeTurn => ({
  content,
  stopReason: 'tool_use',
  usage: usage(request, content),
});

/** The scripted model: one answer per request, from the scenario's policy. */
export function scriptedModel(request: FakeRequest): FakeTurn {
  const endpoint = endpointName(request.context);
  const seen = read(request);
  const writesRules = request.body.tools?.some((tool) => tool.name === 'propose_rules') ?? false;
  const siblingResult = request.toolResults.find((result) => result.tool === 'get_sibling_latest_responses');
  const siblingDown = siblingResult ? siblingResult.content.includes('\\"database\\":\\"down\\"') : null;

  if (writesRules) {
    if (seen.yours !== null && rulesStillFit(seen)) {
      return answer(request, [submit('My rules follow the description; nothing to change.', 1440)]);
    }
    const proposal = rulesFor(endpoint, seen);
    const blocks: FakeBlock[] = [
      call('propose_rules', { ...proposal, reason: 'The description, written down as rules.' }),
    ];
    // Woken because the response changed shape: the new rules act from the next run, a hint now.
    const now = decide(endpoint, seen, null);
    if (seen.yours !== null && 'intervalMs' in now) {
      blocks.push(intervalHint(now.intervalMs, 'until my new rules see the next run', 5));
    }
    blocks.push(submit('Rules written from the description; they wake me if the response changes shape.', 1440));
    return answer(request, blocks);
  }

  const decision = decide(endpoint, seen, siblingDown);
  if ('siblings' in decision) return answer(request, [call('get_sibling_latest_responses', {})]);
  const action =
    'pauseMs' in decision
      ? call('pause_until', {
          pausedUntil: new Date(seen.now.getTime() + decision.pauseMs).toISOString(),
          reason: 'Retry-After',
        })
      : intervalHint(decision.intervalMs, 'as the description asks for this response');
  return answer(request, [action, submit('Set the cadence the description asks for.', ANALYSE_EVERY_MINUTES)]);
}
