import { applyEndpointInput, createEndpointInput } from './endpoint.js';
import {
  checkResponseRules,
  fieldPath,
  responseRules,
  successWhenInput,
  type ResponseRule,
  type ResponseRulesContext,
} from './response-rules.js';

const A = '0198c0de-0000-7000-8000-00000000000a';
const B = '0198c0de-0000-7000-8000-00000000000b';
const C = '0198c0de-0000-7000-8000-00000000000c';

/** The first issue's field and message, as the API reports them. */
function firstIssue(schema: typeof responseRules | typeof successWhenInput, value: unknown) {
  const result = schema.safeParse(value);
  if (result.success) return null;
  const issue = result.error.issues[0]!;
  return { field: fieldPath(issue.path), message: issue.message };
}

const rule = (fields: Partial<ResponseRule> = {}): ResponseRule => ({
  name: 'r',
  when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] },
  then: { intervalMs: 60_000 },
  ...fields,
});

describe('response rule schemas', () => {
  it.each<[string, unknown, string, RegExp]>([
    [
      'a bad path',
      [
        rule(),
        rule({ name: 's' }),
        rule({
          name: 't',
          when: {
            all: [
              { path: '$.a', op: 'exists' },
              { path: 'backlog', op: 'exists' },
            ],
          },
        }),
      ],
      '[2].when.all[1].path',
      /must start with \$/,
    ],
    [
      'an unknown op',
      [rule({ when: { any: [{ path: '$.a', op: 'greater' as never, value: 1 }] } })],
      '[0].when.any[0].op',
      /must be one of eq, ne/,
    ],
    [
      'a value for exists',
      [rule({ when: { all: [{ path: '$.a', op: 'exists', value: 1 }] } })],
      '[0].when.all[0].value',
      /exists takes no value/,
    ],
    [
      'no value for eq',
      [rule({ when: { all: [{ path: '$.a', op: 'eq' }] } })],
      '[0].when.all[0].value',
      /eq needs a value/,
    ],
    [
      'an object for gt',
      [rule({ when: { all: [{ path: '$.a', op: 'gt', value: { n: 1 } }] } })],
      '[0].when.all[0].value',
      /compares with a number or a string/,
    ],
    [
      'a backreference',
      [rule({ when: { all: [{ path: '$', op: 'matches', value: '(a)\\1' }] } })],
      '[0].when.all[0].value',
      /not a valid RE2/,
    ],
    ['an interval below 1000 ms', [rule({ then: { intervalMs: 500 } })], '[0].then.intervalMs', /at least 1000 ms/],
    ['an empty action', [rule({ then: {} })], '[0].then', /at least one of intervalMs, pauseMs, runEndpoint, analyse/],
    [
      'interval and pause together',
      [rule({ then: { intervalMs: 60_000, pauseMs: 60_000 } })],
      '[0].then.pauseMs',
      /either intervalMs or pauseMs/,
    ],
    [
      'a runEndpoint that is no id',
      [rule({ then: { runEndpoint: 'B' } })],
      '[0].then.runEndpoint',
      /must be an endpoint id/,
    ],
    ['twice the same name', [rule(), rule()], '[1].name', /rule names must differ/],
    ['an unknown field', [{ ...rule(), priority: 1 }], '[0]', /priority/],
    ['21 rules', Array.from({ length: 21 }, (_, i) => rule({ name: `r${i}` })), '', /at most 20 rules/],
  ])('refuses %s, naming the field', (_name, value, field, message) => {
    const issue = firstIssue(responseRules, value);
    expect(issue?.field).toBe(field);
    expect(issue?.message).toMatch(message);
  });

  it('refuses a bad successWhen status and condition, naming the field', () => {
    expect(firstIssue(successWhenInput, { status: ['2xx', 600] })).toMatchObject({ field: 'status[1]' });
    expect(firstIssue(successWhenInput, { status: ['6xx'] })).toMatchObject({ field: 'status[0]' });
    expect(
      firstIssue(successWhenInput, {
        all: [
          { path: '$.ok', op: 'eq', value: true },
          { path: '$[*]', op: 'exists' },
        ],
      }),
    ).toMatchObject({
      field: 'all[1].path',
    });
  });

  it('accepts the forms the guide shows', () => {
    expect(
      successWhenInput.safeParse({ status: ['2xx', 304], all: [{ path: '$.ok', op: 'eq', value: true }] }).success,
    ).toBe(true);
    expect(
      responseRules.safeParse([
        {
          name: 'backlog high',
          when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] },
          then: { intervalMs: 60_000 },
        },
        {
          name: 'maintenance',
          when: { any: [{ path: '$.state', op: 'matches', value: '^maint' }] },
          then: { pauseMs: 600_000 },
        },
        { name: 'then B', when: { runStatus: 'success' }, then: { runEndpoint: B, analyse: true } },
        { name: 'every run', when: {}, then: { analyse: true } },
      ]).success,
    ).toBe(true);
  });
});

describe('checkResponseRules', () => {
  const context = (siblings: { id: string; rules: ResponseRule[] | null }[], endpointId: string | null = A) => ({
    endpointId,
    accountMinIntervalMs: 10_000,
    siblings,
  });
  const check = (
    rules: ResponseRule[],
    ctx: ResponseRulesContext | null = context([{ id: B, rules: null }]),
    baselineCron: string | null = null,
  ) => checkResponseRules({ baselineCron, successWhen: null, rules }, ctx);

  it('refuses interval rules on a cron endpoint, with or without context', () => {
    expect(check([rule()], null, '*/5 * * * *')).toEqual([
      {
        field: 'rules[0].then.intervalMs',
        message: expect.stringMatching(/cron-scheduled endpoints do not support interval rules/),
      },
    ]);
    expect(check([rule({ then: { pauseMs: 60_000 } })], null, '*/5 * * * *')).toEqual([]);
  });

  it("refuses an interval below the account's minimum", () => {
    expect(check([rule({ then: { intervalMs: 5000 } })])[0]).toMatchObject({
      field: 'rules[0].then.intervalMs',
      message: expect.stringMatching(/below this account's minimum interval of 10000 ms/),
    });
  });

  it('refuses running its own endpoint, or one outside the job', () => {
    expect(check([rule({ then: { runEndpoint: A } })])[0]).toMatchObject({
      message: 'a rule cannot run its own endpoint',
    });
    expect(check([rule({ then: { runEndpoint: C } })])[0]).toMatchObject({
      field: 'rules[0].then.runEndpoint',
      message: expect.stringMatching(/is not an endpoint of this job/),
    });
  });

  it('refuses a chain that returns to its endpoint, through any sibling', () => {
    const siblings = [
      { id: B, rules: [rule({ name: 'b to c', then: { runEndpoint: C } })] },
      { id: C, rules: [rule({ name: 'c to a', then: { runEndpoint: A } })] },
    ];
    expect(check([rule({ then: { runEndpoint: B } })], context(siblings))).toEqual([
      { field: 'rules[0].then.runEndpoint', message: expect.stringContaining(`(${A} → ${B} → ${C} → ${A})`) },
    ]);
    // Without the edge back, the chain A → B → C is fine; a new endpoint cannot be reached at all.
    const open = [siblings[0]!, { id: C, rules: null }];
    expect(check([rule({ then: { runEndpoint: B } })], context(open))).toEqual([]);
    expect(check([rule({ then: { runEndpoint: B } })], context(siblings, null))).toEqual([]);
  });

  it('allows at most four matches conditions per endpoint', () => {
    const matches = { path: '$', op: 'matches' as const, value: 'x' };
    const issues = checkResponseRules(
      {
        baselineCron: null,
        successWhen: { all: [matches, matches] },
        rules: [rule({ when: { all: [matches], any: [matches, matches] } })],
      },
      null,
    );
    expect(issues).toEqual([
      {
        field: 'rules[0].when.any[1].op',
        message: 'an endpoint has at most 4 matches conditions (successWhen and rules together)',
      },
    ]);
  });

  it('is part of the endpoint configuration check: a PATCH to cron with interval rules is refused', () => {
    const created = applyEndpointInput(
      null,
      createEndpointInput.parse({
        name: 'e',
        url: 'https://example.com/',
        method: 'GET',
        baselineIntervalMs: 60_000,
        rules: [rule()],
      }),
    );
    expect(created.issues).toEqual([]);
    const patched = applyEndpointInput(created.config, { baselineCron: '*/5 * * * *' });
    expect(patched.issues.map((issue) => issue.field)).toEqual(['rules[0].then.intervalMs']);
  });
});
