import {
  governClearHints,
  governIntervalProposal,
  governNextTimeProposal,
  governPause,
  governRulesProposal,
  type GovernorTarget,
  type RulesTarget,
} from './governor.js';
import { parsePlannerToolInput } from './tools.js';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);
const MINUTE = 60_000;
const iso = (offsetMs: number) => at(offsetMs).toISOString();

const endpoint = (overrides: Partial<GovernorTarget> = {}): GovernorTarget => ({
  baselineCron: null,
  baselineIntervalMs: 60_000,
  minIntervalMs: 10_000,
  maxIntervalMs: 600_000,
  lastRunAt: at(-5_000),
  pausedUntil: null,
  pauseOrigin: null,
  hintIntervalMs: null,
  hintIntervalExpiresAt: null,
  hintIntervalOrigin: null,
  hintOneShotAt: null,
  hintOneShotExpiresAt: null,
  hintOneShotOrigin: null,
  ...overrides,
});

describe('governIntervalProposal', () => {
  it.each([
    [30_000, 30_000, ''],
    [1_000, 10_000, ' (requested 1000 ms, clamped to minIntervalMs 10000 ms)'],
    [3_600_000, 600_000, ' (requested 3600000 ms, clamped to maxIntervalMs 600000 ms)'],
  ])('%i ms applies as %i ms', (intervalMs, applied, note) => {
    expect(governIntervalProposal(endpoint(), { intervalMs, ttlMinutes: 30, reason: 'r' }, NOW)).toEqual({
      kind: 'apply',
      change: {
        kind: 'interval-hint',
        intervalMs: applied,
        expiresAt: at(30 * MINUTE),
        reason: 'r',
        origin: 'planner',
      },
      summary: `interval ${applied} ms until ${iso(30 * MINUTE)}${note}`,
    });
  });

  it("raises a proposal to the account's minimum interval", () => {
    const verdict = governIntervalProposal(
      endpoint({ minIntervalMs: null }),
      { intervalMs: 5000, ttlMinutes: 1, reason: 'r' },
      NOW,
      60_000,
    );
    expect(verdict).toMatchObject({
      kind: 'apply',
      change: { intervalMs: 60_000 },
      summary: expect.stringContaining("requested 5000 ms, raised to the account's minimum interval 60000 ms"),
    });
  });

  it('is refused on a cron endpoint', () => {
    const verdict = governIntervalProposal(
      endpoint({ baselineCron: '*/5 * * * *' }),
      { intervalMs: 30_000, ttlMinutes: 30, reason: 'r' },
      NOW,
    );
    expect(verdict).toEqual({
      kind: 'refuse',
      summary:
        'cron-scheduled endpoints do not support interval hints; adaptive interval behaviour needs baselineIntervalMs',
    });
  });

  it('does not replace an active user hint, but replaces its own or an expired one', () => {
    const input = { intervalMs: 30_000, ttlMinutes: 30, reason: 'r' };
    const user = { hintIntervalMs: 5000, hintIntervalExpiresAt: at(MINUTE), hintIntervalOrigin: 'user' as const };
    expect(governIntervalProposal(endpoint(user), input, NOW)).toEqual({
      kind: 'refuse',
      summary: `a user-set interval hint is active until ${iso(MINUTE)}; the planner does not replace it`,
    });
    expect(governIntervalProposal(endpoint({ ...user, hintIntervalExpiresAt: NOW }), input, NOW).kind).toBe('apply');
    expect(governIntervalProposal(endpoint({ ...user, hintIntervalOrigin: 'planner' }), input, NOW).kind).toBe('apply');
  });

  it("replaces a response rule's interval hint (the latest decision wins), but never lifts a rule's pause", () => {
    const rule = { hintIntervalMs: 5000, hintIntervalExpiresAt: at(MINUTE), hintIntervalOrigin: 'rule' as const };
    const input = { intervalMs: 30_000, ttlMinutes: 30, reason: 'r' };
    expect(governIntervalProposal(endpoint(rule), input, NOW).kind).toBe('apply');
    expect(
      governPause(endpoint({ pausedUntil: at(MINUTE), pauseOrigin: 'rule' }), { pausedUntil: null, reason: 'r' }, NOW),
    ).toEqual({
      kind: 'refuse',
      summary: `the endpoint was paused by a response rule until ${iso(MINUTE)}; the planner never lifts or changes a rule's pause`,
    });
  });

  it('notes that a pause delays the hint', () => {
    const verdict = governIntervalProposal(
      endpoint({ pausedUntil: at(MINUTE), pauseOrigin: 'user' }),
      { intervalMs: 30_000, ttlMinutes: 30, reason: 'r' },
      NOW,
    );
    expect(verdict.summary).toContain(
      `the endpoint is paused until ${iso(MINUTE)}, so the hint applies after the pause`,
    );
  });
});

describe('governNextTimeProposal', () => {
  it('defaults the TTL to 15 minutes after the run time', () => {
    expect(governNextTimeProposal(endpoint(), { nextRunAt: iso(10 * MINUTE), reason: 'r' }, NOW)).toEqual({
      kind: 'apply',
      change: {
        kind: 'one-shot-hint',
        nextRunAt: at(10 * MINUTE),
        expiresAt: at(25 * MINUTE),
        reason: 'r',
        origin: 'planner',
      },
      summary: `one run at ${iso(10 * MINUTE)}, which replaces the scheduled runs until then; hint expires ${iso(25 * MINUTE)}`,
    });
  });

  it('runs a past time as soon as possible, and says when the min clamp moves it', () => {
    const verdict = governNextTimeProposal(endpoint(), { nextRunAt: iso(-MINUTE), reason: 'r' }, NOW);
    expect(verdict).toMatchObject({ kind: 'apply', change: { nextRunAt: NOW } });
    expect(verdict.summary).toContain(`(the minIntervalMs floor moves it to ${iso(5_000)})`);
  });

  it.each([
    ['more than a day ahead', { nextRunAt: iso(1440 * MINUTE), reason: 'r' }, /too far ahead/],
    ['after its own expiry', { nextRunAt: iso(30 * MINUTE), ttlMinutes: 10, reason: 'r' }, /would never run/],
  ])('is refused %s', (_case, input, message) => {
    const verdict = governNextTimeProposal(endpoint(), input, NOW);
    expect(verdict.kind).toBe('refuse');
    expect(verdict.summary).toMatch(message);
  });

  it('does not replace an active user one-shot', () => {
    const user = {
      hintOneShotAt: at(MINUTE),
      hintOneShotExpiresAt: at(10 * MINUTE),
      hintOneShotOrigin: 'user' as const,
    };
    expect(governNextTimeProposal(endpoint(user), { nextRunAt: iso(2 * MINUTE), reason: 'r' }, NOW).kind).toBe(
      'refuse',
    );
  });
});

describe('governPause', () => {
  it('pauses until a future time within 7 days', () => {
    const unbounded = endpoint({ maxIntervalMs: null });
    expect(governPause(unbounded, { pausedUntil: iso(60 * MINUTE), reason: 'closed' }, NOW)).toEqual({
      kind: 'apply',
      change: { kind: 'pause', pausedUntil: at(60 * MINUTE), reason: 'closed', origin: 'planner' },
      summary: `paused until ${iso(60 * MINUTE)}`,
    });
    expect(governPause(endpoint(), { pausedUntil: iso(-1), reason: 'r' }, NOW).kind).toBe('refuse');
    expect(governPause(endpoint(), { pausedUntil: iso(7 * 1440 * MINUTE + 1), reason: 'r' }, NOW).kind).toBe('refuse');
  });

  it('cuts a pause to lastRunAt + maxIntervalMs, and refuses one when that has passed', () => {
    // maxIntervalMs 10 min, last run 5 s ago: the endpoint must run by NOW + 9 min 55 s.
    const runBy = 10 * MINUTE - 5_000;
    expect(governPause(endpoint(), { pausedUntil: iso(7 * 1440 * MINUTE), reason: 'told so' }, NOW)).toEqual({
      kind: 'apply',
      change: { kind: 'pause', pausedUntil: at(runBy), reason: 'told so', origin: 'planner' },
      summary: `paused until ${iso(runBy)} (requested until ${iso(7 * 1440 * MINUTE)}, cut to lastRunAt + maxIntervalMs)`,
    });
    // Within the limit: as asked.
    expect(governPause(endpoint(), { pausedUntil: iso(5 * MINUTE), reason: 'r' }, NOW)).toMatchObject({
      change: { pausedUntil: at(5 * MINUTE) },
    });
    // Never run yet: from now.
    expect(
      governPause(endpoint({ lastRunAt: null }), { pausedUntil: iso(60 * MINUTE), reason: 'r' }, NOW),
    ).toMatchObject({ change: { pausedUntil: at(10 * MINUTE) } });
    expect(
      governPause(endpoint({ lastRunAt: at(-11 * MINUTE) }), { pausedUntil: iso(60 * MINUTE), reason: 'r' }, NOW),
    ).toEqual({
      kind: 'refuse',
      summary: `the endpoint must run by ${iso(-MINUTE)} (lastRunAt + maxIntervalMs 600000 ms); a planner pause cannot hold it past that`,
    });
  });

  it('resumes its own pause; a resume without a pause changes nothing', () => {
    const own = endpoint({ pausedUntil: at(MINUTE), pauseOrigin: 'planner' });
    expect(governPause(own, { pausedUntil: null, reason: 'r' }, NOW)).toMatchObject({
      kind: 'apply',
      change: { kind: 'pause', pausedUntil: null },
    });
    expect(governPause(endpoint(), { pausedUntil: null, reason: 'r' }, NOW)).toEqual({
      kind: 'noop',
      summary: 'the endpoint is not paused; nothing to resume',
    });
    // A planner pause that has ended is no pause.
    expect(
      governPause(endpoint({ pausedUntil: NOW, pauseOrigin: 'planner' }), { pausedUntil: null, reason: 'r' }, NOW).kind,
    ).toBe('noop');
  });

  it("never lifts, shortens or extends a user's pause", () => {
    const user = endpoint({ pausedUntil: at(MINUTE), pauseOrigin: 'user' });
    for (const pausedUntil of [null, iso(30_000), iso(10 * MINUTE)]) {
      expect(governPause(user, { pausedUntil, reason: 'r' }, NOW)).toEqual({
        kind: 'refuse',
        summary: `the endpoint was paused by a user until ${iso(MINUTE)}; the planner never lifts or changes a user's pause`,
      });
    }
  });
});

describe('governClearHints', () => {
  const plannerInterval = {
    hintIntervalMs: 5000,
    hintIntervalExpiresAt: at(MINUTE),
    hintIntervalOrigin: 'planner' as const,
  };
  const plannerOneShot = {
    hintOneShotAt: at(MINUTE),
    hintOneShotExpiresAt: at(2 * MINUTE),
    hintOneShotOrigin: 'planner' as const,
  };

  it('clears its own hints', () => {
    expect(governClearHints(endpoint({ ...plannerInterval, ...plannerOneShot }), NOW)).toEqual({
      kind: 'apply',
      change: { kind: 'clear-hints' },
      summary: 'cleared the interval and one-shot hint; the baseline schedule applies',
    });
  });

  it('has nothing to clear when the hints expired', () => {
    expect(governClearHints(endpoint({ ...plannerInterval, hintIntervalExpiresAt: NOW }), NOW).kind).toBe('noop');
  });

  it("leaves a user's hint alone", () => {
    const verdict = governClearHints(
      endpoint({ ...plannerInterval, ...plannerOneShot, hintOneShotOrigin: 'user' }),
      NOW,
    );
    expect(verdict).toEqual({
      kind: 'refuse',
      summary: `the one-shot hint was set by a user and stays until ${iso(2 * MINUTE)}; the planner does not clear it`,
    });
  });
});

describe('governRulesProposal', () => {
  const target = (overrides: Partial<RulesTarget> = {}): RulesTarget => ({
    baselineCron: null,
    minIntervalMs: 10_000,
    maxIntervalMs: 600_000,
    successWhen: null,
    rules: null,
    ...overrides,
  });
  const input = (rules: unknown[], extra: Record<string, unknown> = {}) => {
    const parsed = parsePlannerToolInput('propose_rules', { rules, reason: 'from the description', ...extra });
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.value;
  };
  const when = { all: [{ path: '$.backlog', op: 'gt', value: 100 }] };

  it('raises intervals to the account minimum, lowers them to maxIntervalMs and cuts pauses to it', () => {
    const verdict = governRulesProposal(
      target(),
      input([
        { name: 'fast', when, then: { intervalMs: 1000 } },
        { name: 'slow', when, then: { intervalMs: 3_600_000 } },
        { name: 'rest', when, then: { pauseMs: 86_400_000 } },
      ]),
      NOW,
      30_000,
    );
    expect(verdict.kind).toBe('apply');
    if (verdict.kind !== 'apply' || verdict.change.kind !== 'ai-rules') throw new Error('not applied');
    expect(verdict.change.rules!.map((rule) => [rule.name, rule.then])).toEqual([
      ['planner: fast', { intervalMs: 30_000 }],
      ['planner: slow', { intervalMs: 600_000 }],
      ['planner: rest', { pauseMs: 600_000 }],
    ]);
    expect(verdict.change.expiresAt).toEqual(at(7 * 24 * 60 * MINUTE));
    expect(verdict.summary).toContain("fast: intervalMs 1000 ms clamped to the account's minimum interval 30000 ms");
    expect(verdict.summary).toContain('slow: intervalMs 3600000 ms clamped to maxIntervalMs 600000 ms');
    expect(verdict.summary).toContain('rest: pauseMs 86400000 ms cut to 600000 ms');
  });

  it('without maxIntervalMs cuts a pause to 7 days', () => {
    const verdict = governRulesProposal(
      target({ maxIntervalMs: null }),
      input([{ name: 'rest', when, then: { pauseMs: 20 * 86_400_000 } }]),
      NOW,
    );
    if (verdict.kind !== 'apply' || verdict.change.kind !== 'ai-rules') throw new Error('not applied');
    expect(verdict.change.rules![0]!.then).toEqual({ pauseMs: 7 * 86_400_000 });
  });

  it('refuses duplicate names, runEndpoint, more than 10 rules and interval rules on cron', () => {
    const refused = (rules: unknown[], over: Partial<RulesTarget> = {}) =>
      governRulesProposal(target(over), input(rules), NOW);
    expect(
      refused([
        { name: 'a', when, then: { analyse: true } },
        { name: 'a', when, then: { analyse: true } },
      ]),
    ).toEqual({
      kind: 'refuse',
      summary: 'rules[1].name: rule names must differ',
    });
    expect(refused([{ name: 'x', when, then: { runEndpoint: '00000000-0000-4000-8000-000000000000' } }]).kind).toBe(
      'refuse',
    );
    expect(refused(Array.from({ length: 11 }, (_, i) => ({ name: `r${i}`, when, then: { analyse: true } }))).kind).toBe(
      'refuse',
    );
    expect(refused([{ name: 'x', when, then: { intervalMs: 60_000 } }], { baselineCron: '* * * * *' }).kind).toBe(
      'refuse',
    );
  });

  it('tells the model when the user successWhen wins over its own, and removes everything with []', () => {
    const userSuccess = { all: [{ path: '$.ok', op: 'eq', value: true }] };
    const verdict = governRulesProposal(
      target({ successWhen: userSuccess }),
      input([], { successWhen: { all: [{ path: '$.ok', op: 'ne', value: false }] } }),
      NOW,
    );
    expect(verdict.summary).toContain("the endpoint's own successWhen applies, not yours");
    const cleared = governRulesProposal(target(), input([]), NOW);
    expect(cleared).toMatchObject({ kind: 'apply', change: { kind: 'ai-rules', rules: null, successWhen: null } });
  });
});
