import { responseRules, successWhenInput } from '../schemas/response-rules.js';
import { MISSING, parsePath, resolvePath, type ResponseSubject } from './path.js';
import { evaluateCondition, type CompiledCondition } from './conditions.js';
import { applyRules, compileResponseRules, judgeRun, type JudgedRun, type ResponseRulesConfig } from './evaluate.js';
import { compileBoundedRegex, REGEX_LIMITS, testBoundedRegex } from './regex.js';

const json = (body: unknown, extra: Partial<ResponseSubject> = {}): ResponseSubject => ({
  statusCode: 200,
  durationMs: 120,
  responseBody: body,
  responseFormat: 'json',
  ...extra,
});

const BODY = {
  backlog: 150,
  ok: true,
  state: 'draining',
  at: '2026-11-30T10:02:00Z',
  nested: { list: [{ id: 'a' }, { id: 'b' }], 'a.b': 1, empty: null },
  tags: ['red', 'blue'],
};

describe('parsePath and resolvePath', () => {
  it.each([
    ['$', BODY],
    ['$.backlog', 150],
    ['$.nested.list[0].id', 'a'],
    ['$.nested.list[-1].id', 'b'],
    ['$.nested["a.b"]', 1],
    ["$.nested['a.b']", 1],
    ['$.nested.empty', null],
    ['$.tags[1]', 'blue'],
    ['$status', 200],
    ['$durationMs', 120],
  ])('%s names %j', (text, expected) => {
    const parsed = parsePath(text);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(resolvePath(parsed.path, json(BODY))).toEqual(expected);
  });

  it.each([
    '$.missing',
    '$.nested.list[2]',
    '$.nested.list[-3]',
    '$.backlog.deeper',
    '$.tags.red',
    '$[0]',
    '$.nested.list.id',
  ])('%s names nothing', (text) => {
    const parsed = parsePath(text);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(resolvePath(parsed.path, json(BODY))).toBe(MISSING);
  });

  it.each([
    ['backlog', /must start with \$/],
    ['$.', /expected a key after "\." at character 2/],
    ['$.items[*]', /unexpected "\[" at character 8/],
    ['$..deep', /expected a key/],
    ['$.a[?(@.x)]', /unexpected/],
    ['$statuses', /unexpected "s"/],
    [`$.${'a'.repeat(200)}`, /at most 200 characters/],
  ])('refuses %s', (text, message) => {
    const parsed = parsePath(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(message);
  });

  it('reads a text body as $, an empty body as "", and no response as missing', () => {
    const root = parsePath('$');
    if (!root.ok) throw new Error('parse');
    expect(resolvePath(root.path, { ...json('all good'), responseFormat: 'text' })).toBe('all good');
    expect(resolvePath(root.path, { ...json(null), responseFormat: 'empty' })).toBe('');
    expect(resolvePath(root.path, { ...json(null), responseFormat: null, statusCode: null })).toBe(MISSING);
    const status = parsePath('$status');
    if (!status.ok) throw new Error('parse');
    expect(resolvePath(status.path, { ...json(null), responseFormat: null, statusCode: null })).toBe(MISSING);
  });
});

function condition(path: string, op: CompiledCondition['op'], value?: unknown): CompiledCondition {
  const parsed = parsePath(path);
  if (!parsed.ok) throw new Error(parsed.message);
  if (op === 'matches') {
    const regex = compileBoundedRegex(value as string);
    if (!regex.ok) throw new Error(regex.message);
    return { path: parsed.path, op, value: value as string, regex: regex.regex };
  }
  return { path: parsed.path, op, value } as CompiledCondition;
}

describe('evaluateCondition', () => {
  it.each<[string, CompiledCondition['op'], unknown, boolean]>([
    ['$.backlog', 'gt', 100, true],
    ['$.backlog', 'gt', 150, false],
    ['$.backlog', 'gte', 150, true],
    ['$.backlog', 'lt', 200, true],
    ['$.backlog', 'lte', 149, false],
    ['$.backlog', 'gt', '100', false],
    ['$.at', 'gt', '2026-11-30T10:00:00Z', true],
    ['$.at', 'lt', '2026-11-30T10:00:00Z', false],
    ['$.ok', 'eq', true, true],
    ['$.ok', 'eq', 'true', false],
    ['$.backlog', 'eq', 150.0, true],
    ['$.nested.list[0]', 'eq', { id: 'a' }, true],
    ['$.nested.list', 'eq', [{ id: 'a' }, { id: 'b' }], true],
    ['$.nested.list', 'eq', [{ id: 'b' }, { id: 'a' }], false],
    ['$.ok', 'ne', false, true],
    ['$.ok', 'ne', true, false],
    ['$.missing', 'ne', 1, false],
    ['$.missing', 'eq', null, false],
    ['$.nested.empty', 'eq', null, true],
    ['$.nested.empty', 'exists', undefined, true],
    ['$.missing', 'exists', undefined, false],
    ['$.missing', 'missing', undefined, true],
    ['$.nested.empty', 'missing', undefined, false],
    ['$.state', 'contains', 'drain', true],
    ['$.state', 'contains', 'fill', false],
    ['$.tags', 'contains', 'red', true],
    ['$.tags', 'contains', 'green', false],
    ['$.nested.list', 'contains', { id: 'b' }, true],
    ['$.backlog', 'contains', 1, false],
    ['$.state', 'matches', '^drain(ing|ed)$', true],
    ['$.state', 'matches', '(?i)DRAIN', true],
    ['$.state', 'matches', '^ing', false],
    ['$.backlog', 'matches', '150', false],
    ['$status', 'eq', 200, true],
    ['$durationMs', 'lt', 500, true],
  ])('%s %s %j → %p', (path, op, value, holds) => {
    expect(evaluateCondition(condition(path, op, value), json(BODY)).holds).toBe(holds);
  });
});

describe('bounded regular expressions', () => {
  it.each([
    ['(a)\\1', /not a valid RE2 regular expression/],
    ['(?=a)b', /not a valid RE2 regular expression/],
    ['x'.repeat(201), /at most 200 characters/],
    ['(?:a{1,50}b){10}', /compiles to \d+ instructions, more than the 200 allowed/],
  ])('refuses %s', (pattern, message) => {
    const compiled = compileBoundedRegex(pattern);
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.message).toMatch(message);
  });

  it('reads at most matchBudget / program size characters of a text', () => {
    const compiled = compileBoundedRegex('z$');
    if (!compiled.ok) throw new Error(compiled.message);
    const { regex } = compiled;
    expect(regex.maxChars).toBe(Math.floor(REGEX_LIMITS.matchBudget / regex.re.programSize()));
    expect(testBoundedRegex(regex, `${'a'.repeat(regex.maxChars - 1)}z`)).toBe(true);
    expect(testBoundedRegex(regex, `${'a'.repeat(regex.maxChars)}z`)).toBe(false);
  });

  it('ends a pathological pattern over a megabyte at once', () => {
    const compiled = compileBoundedRegex('(a+)+b');
    if (!compiled.ok) throw new Error(compiled.message);
    const started = performance.now();
    // JavaScript's RegExp backtracks for ages on this; RE2 reads the bounded prefix once, in linear time.
    expect(testBoundedRegex(compiled.regex, `${'a'.repeat(1 << 20)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

const config = (fields: Partial<ResponseRulesConfig>): ResponseRulesConfig => ({
  successWhen: null,
  rules: null,
  minIntervalMs: null,
  maxIntervalMs: null,
  ...fields,
});

const run = (body: unknown, extra: Partial<JudgedRun> = {}): JudgedRun => ({
  ...json(body),
  status: 'success',
  errorKind: null,
  errorMessage: null,
  responseTruncated: false,
  ...extra,
});

describe('judgeRun', () => {
  const ok = successWhenInput.parse({ all: [{ path: '$.ok', op: 'eq', value: true }] });
  it.each<
    [string, Partial<ResponseRulesConfig>, JudgedRun, { status: string; errorKind: string | null; message?: RegExp }]
  >([
    ['no successWhen: unchanged', {}, run({ ok: false }), { status: 'success', errorKind: null }],
    ['a holding condition', { successWhen: ok }, run({ ok: true }), { status: 'success', errorKind: null }],
    [
      'a failing condition',
      { successWhen: ok },
      run({ ok: false }),
      {
        status: 'failed',
        errorKind: 'assertion_failed',
        message: /^successWhen\.all\[0\] failed: \$\.ok eq true; saw false$/,
      },
    ],
    [
      'a missing field, the body cut',
      { successWhen: ok },
      run('{"ok":tr', { responseFormat: 'text', responseTruncated: true }),
      { status: 'failed', errorKind: 'assertion_failed', message: /saw nothing .*cut at maxResponseSizeKb/ },
    ],
    [
      'a 500 stays an http_status failure without a status list',
      { successWhen: ok },
      run({ ok: true }, { statusCode: 500, status: 'failed', errorKind: 'http_status', errorMessage: 'HTTP 500' }),
      { status: 'failed', errorKind: 'http_status', message: /^HTTP 500$/ },
    ],
    [
      'a listed 404 succeeds',
      { successWhen: successWhenInput.parse({ status: ['2xx', 404] }) },
      run(null, { statusCode: 404, status: 'failed', errorKind: 'http_status', errorMessage: 'HTTP 404 Not Found' }),
      { status: 'success', errorKind: null },
    ],
    [
      'an unlisted 204 fails',
      { successWhen: successWhenInput.parse({ status: [200] }) },
      run(null, { statusCode: 204, responseFormat: 'empty' }),
      { status: 'failed', errorKind: 'http_status', message: /HTTP 204 is not one of successWhen\.status \(200\)/ },
    ],
    [
      'a timeout stays a timeout',
      { successWhen: successWhenInput.parse({ status: ['5xx'] }) },
      run(null, {
        statusCode: null,
        responseFormat: null,
        status: 'failed',
        errorKind: 'timeout',
        errorMessage: 'timed out',
      }),
      { status: 'failed', errorKind: 'timeout', message: /timed out/ },
    ],
  ])('%s', (_name, fields, judged, expected) => {
    const verdict = judgeRun(compileResponseRules(config(fields)), judged);
    expect(verdict.status).toBe(expected.status);
    expect(verdict.errorKind).toBe(expected.errorKind);
    if (expected.message) expect(verdict.errorMessage).toMatch(expected.message);
    else expect(verdict.errorMessage).toBeNull();
  });
});

describe('applyRules', () => {
  const END = new Date('2026-11-30T10:02:00.000Z');
  const rules = responseRules.parse([
    {
      name: 'backlog high',
      when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] },
      then: { intervalMs: 60_000 },
    },
    {
      name: 'backlog huge',
      when: { all: [{ path: '$.backlog', op: 'gt', value: 1000 }] },
      then: { intervalMs: 10_000 },
    },
    {
      name: 'stop',
      when: {
        any: [
          { path: '$.state', op: 'eq', value: 'maintenance' },
          { path: '$.halt', op: 'exists' },
        ],
      },
      then: { pauseMs: 600_000 },
    },
    {
      name: 'then B',
      when: { runStatus: 'success', status: ['2xx'] },
      then: { runEndpoint: '0198c0de-0000-7000-8000-000000000002', analyse: true },
    },
  ]);
  const compiled = (bounds: Partial<ResponseRulesConfig> = {}) => compileResponseRules(config({ rules, ...bounds }));

  it('lists every matching rule in order; the first interval wins, renewed two intervals on', () => {
    const outcome = applyRules(compiled(), { ...json({ backlog: 5000 }), status: 'success' }, END)!;
    expect(outcome.matched).toEqual(['backlog high', 'backlog huge', 'then B']);
    expect(outcome.interval).toEqual({
      rule: 'backlog high',
      intervalMs: 60_000,
      expiresAtMs: END.getTime() + 120_000,
    });
    expect(outcome.pause).toBeNull();
    expect(outcome.runEndpoints).toEqual([{ endpointId: '0198c0de-0000-7000-8000-000000000002', rule: 'then B' }]);
    expect(outcome.analyse).toBe(true);
  });

  it('clamps the interval to minIntervalMs and maxIntervalMs', () => {
    const low = applyRules(
      compiled({ minIntervalMs: 120_000 }),
      { ...json({ backlog: 150 }), status: 'success' },
      END,
    )!;
    expect(low.interval?.intervalMs).toBe(120_000);
    expect(low.interval?.expiresAtMs).toBe(END.getTime() + 240_000);
    const high = applyRules(
      compiled({ maxIntervalMs: 30_000 }),
      { ...json({ backlog: 150 }), status: 'success' },
      END,
    )!;
    expect(high.interval?.intervalMs).toBe(30_000);
  });

  it('pauses from the run end on any of its conditions; a failed run matches no runStatus success rule', () => {
    const outcome = applyRules(compiled(), { ...json({ backlog: 1, halt: 1 }), status: 'failed' }, END)!;
    expect(outcome.matched).toEqual(['stop']);
    expect(outcome.pause).toEqual({ rule: 'stop', untilMs: END.getTime() + 600_000 });
    expect(outcome.interval).toBeNull();
    expect(outcome.runEndpoints).toEqual([]);
  });

  it('gives an empty outcome for a run matching nothing, and null for an endpoint without rules', () => {
    const none = applyRules(compiled(), { ...json({ backlog: 1 }, { statusCode: 503 }), status: 'failed' }, END);
    expect(none).toEqual({ matched: [], interval: null, pause: null, runEndpoints: [], analyse: false });
    expect(applyRules(compileResponseRules(config({})), { ...json({}), status: 'success' }, END)).toBeNull();
  });

  it('never matches a stored condition that no longer compiles', () => {
    const stale = compileResponseRules(
      config({
        rules: [
          { name: 'old path', when: { all: [{ path: '$.a[*]', op: 'exists' }] }, then: { analyse: true } },
          {
            name: 'old pattern',
            when: { all: [{ path: '$', op: 'matches', value: '(a)\\1' }] },
            then: { analyse: true },
          },
        ],
      }),
    );
    expect(applyRules(stale, { ...json('aa', { responseFormat: 'text' }), status: 'success' }, END)!.matched).toEqual(
      [],
    );
  });
});
