import {
  findUnstorableField,
  hasUnstorableText,
  JSON_MAX_DEPTH,
  toStorableJson,
  toStorableText,
  type UnstorableField,
} from './storable.js';

const nested = (depth: number): unknown => {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level += 1) value = [value];
  return value;
};

describe('toStorableText', () => {
  it.each([
    ['plain text', 'hello', 'hello'],
    ['empty', '', ''],
    ['NUL', 'a\u0000b', 'a\uFFFDb'],
    ['only NULs', '\u0000\u0000', '\uFFFD\uFFFD'],
    ['lone high surrogate', 'x\uD800y', 'x\uFFFDy'],
    ['lone low surrogate', '\uDC00', '\uFFFD'],
    ['high surrogate at the end', 'ab\uD83D', 'ab\uFFFD'],
    ['reversed pair', '\uDE00\uD83D', '\uFFFD\uFFFD'],
    ['valid pair kept', 'smile \uD83D\uDE00', 'smile \uD83D\uDE00'],
    ['other control characters kept', 'tab\tbell\u0007', 'tab\tbell\u0007'],
    ['U+FFFD itself kept', '\uFFFD', '\uFFFD'],
  ])('%s', (_name, input, expected) => {
    expect(toStorableText(input)).toBe(expected);
    expect(hasUnstorableText(input)).toBe(input !== expected);
  });
});

describe('toStorableJson', () => {
  it.each([
    ['number', 42, 42, false],
    ['null', null, null, false],
    ['clean object', { a: ['b', 1, true, null] }, { a: ['b', 1, true, null] }, false],
    ['string value', { note: 'a\u0000b' }, { note: 'a\uFFFDb' }, true],
    ['top-level string', '\uD800', '\uFFFD', true],
    ['object key', { 'k\u0000': 1 }, { 'k\uFFFD': 1 }, true],
    ['deep in an array', [[{ x: ['ok', '\uDFFF'] }]], [[{ x: ['ok', '\uFFFD'] }]], true],
    ['keys colliding after cleaning: the later wins', { 'a\u0000': 1, 'a\uD800': 2 }, { 'a\uFFFD': 2 }, true],
  ])('%s', (_name, input, expected, isAltered) => {
    expect(toStorableJson(input)).toEqual({ value: expected, isAltered });
  });

  it('refuses JSON nested deeper than JSON_MAX_DEPTH (JSON.stringify would overflow the stack)', () => {
    expect(toStorableJson(nested(JSON_MAX_DEPTH))).toEqual({ value: nested(JSON_MAX_DEPTH), isAltered: false });
    expect(toStorableJson(nested(JSON_MAX_DEPTH + 1))).toBeNull();
  });
});

describe('findUnstorableField', () => {
  it.each<[string, unknown, UnstorableField | null]>([
    ['clean', { name: 'x', headers: { a: 'b' }, list: [1, 'two'] }, null],
    ['top-level string', 'a\u0000', { path: [], reason: 'text' }],
    ['field value', { name: '\u0000' }, { path: ['name'], reason: 'text' }],
    ['header name (a key)', { headers: { 'X-\u0000': 'v' } }, { path: ['headers', 'X-\u0000'], reason: 'key' }],
    ['array item', { tags: ['ok', 'x\uDBFF'] }, { path: ['tags', 1], reason: 'text' }],
    ['first of two, depth first', { a: { b: '\u0000' }, c: '\u0000' }, { path: ['a', 'b'], reason: 'text' }],
  ])('%s', (_name, input, expected) => {
    expect(findUnstorableField(input)).toEqual(expected);
  });

  it('reports nesting deeper than JSON_MAX_DEPTH', () => {
    expect(findUnstorableField(nested(JSON_MAX_DEPTH))).toBeNull();
    const found = findUnstorableField(nested(JSON_MAX_DEPTH + 1));
    expect(found?.reason).toBe('depth');
    expect(found?.path).toHaveLength(JSON_MAX_DEPTH);
  });
});
