import { boundParams, boundToolsCalled, cutText, cutToolName, SESSION_LIMITS } from './session-bounds.js';

describe('cutText', () => {
  it.each([
    ['short', 10, 'short'],
    ['exactly10!', 10, 'exactly10!'],
    ['a'.repeat(1234), 4, 'aaaa… [cut: 1,234 characters in all]'],
    // Never half a surrogate pair: the emoji is dropped whole.
    ['abc\u{1F600}def', 4, 'abc… [cut: 8 characters in all]'],
  ])('%j at %i', (text, max, expected) => {
    expect(cutText(text, max)).toBe(expected);
  });
});

describe('cutToolName', () => {
  it('keeps a name of at most 100 characters and cuts a longer one to 100, marked', () => {
    expect(cutToolName('get_latest_response')).toBe('get_latest_response');
    const cut = cutToolName(`tool_${'y'.repeat(500)}`);
    expect(cut).toHaveLength(SESSION_LIMITS.toolNameMaxChars);
    expect(cut).toMatch(/^tool_y+… \[cut\]$/);
  });
});

describe('boundToolsCalled', () => {
  it('lists 64 names and counts the rest', () => {
    expect(boundToolsCalled(['a', 'b'])).toEqual(['a', 'b']);
    const many = boundToolsCalled(Array.from({ length: 300 }, () => 'propose_interval'));
    expect(many).toHaveLength(65);
    expect(many[64]).toBe('… 236 more tool calls');
  });
});

describe('boundParams', () => {
  it('keeps params whose JSON fits and replaces the rest by a marked preview', () => {
    const small = { intervalMs: 30_000, ttlMinutes: 30, reason: 'surge' };
    expect(boundParams(small)).toBe(small);
    const big = boundParams({ reason: 'x'.repeat(10_000) });
    expect(big).toEqual({ cut: true, chars: 10_013, preview: `{"reason":"${'x'.repeat(1989)}` });
  });
});
