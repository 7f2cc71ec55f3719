import { decodeResponseBody, responseSizeBytes, trimIncompleteUtf8 } from './response-body.js';

describe('trimIncompleteUtf8', () => {
  const text = 'aé☀😀';
  const bytes = Buffer.from(text); // 1 + 2 + 3 + 4 bytes

  it.each([
    [10, 'aé☀😀'],
    [9, 'aé☀'],
    [7, 'aé☀'],
    [6, 'aé☀'],
    [5, 'aé'],
    [3, 'aé'],
    [2, 'a'],
    [1, 'a'],
    [0, ''],
  ])('cut at %i bytes keeps %j', (length, expected) => {
    expect(trimIncompleteUtf8(bytes.subarray(0, length)).toString('utf8')).toBe(expected);
  });
});

describe('decodeResponseBody', () => {
  it.each([
    ['a complete JSON object', '{"a":[1,2]}', true, { a: [1, 2] }, 'json'],
    ['a complete JSON scalar', '42', true, 42, 'json'],
    ['a BOM before JSON', '\uFEFF{"a":1}', true, { a: 1 }, 'json'],
    ['text', 'hello', true, 'hello', 'text'],
    ['malformed JSON', '{"a":', true, '{"a":', 'text'],
    ['a truncated body that happens to parse', '{"a":1}', false, '{"a":1}', 'text'],
    ['an empty body', '', true, null, 'empty'],
  ])('%s', (_name, raw, isComplete, body, format) => {
    expect(decodeResponseBody(Buffer.from(raw), isComplete)).toEqual({
      responseBody: body,
      responseFormat: format,
      responseBodyAltered: false,
    });
  });

  // PostgreSQL refuses U+0000 and lone surrogates; each becomes U+FFFD and the run says so.
  const deep = `${'['.repeat(1001)}${']'.repeat(1001)}`;
  it.each<[string, Buffer, boolean, unknown, string, boolean]>([
    [
      'a JSON string with an escaped NUL',
      Buffer.from('{"note":"a\\u0000b"}'),
      true,
      { note: 'a\uFFFDb' },
      'json',
      true,
    ],
    ['a JSON key with an escaped NUL', Buffer.from('{"k\\u0000":1}'), true, { 'k\uFFFD': 1 }, 'json', true],
    [
      'lone surrogate escapes',
      Buffer.from('["\\ud800",{"x":"\\udc00y"}]'),
      true,
      ['\uFFFD', { x: '\uFFFDy' }],
      'json',
      true,
    ],
    ['a valid escaped surrogate pair', Buffer.from('"\\ud83d\\ude00"'), true, '\uD83D\uDE00', 'json', false],
    ['a binary body with a 0x00 byte', Buffer.from([0x61, 0x00, 0x62]), true, 'a\uFFFDb', 'text', true],
    ['invalid UTF-8 in text', Buffer.from([0x61, 0xff, 0x62]), true, 'a\uFFFDb', 'text', true],
    ['invalid UTF-8 inside a JSON string', Buffer.from([0x22, 0xff, 0x22]), true, '\uFFFD', 'json', true],
    ['a truncated text body with a NUL', Buffer.from('ab\u0000cd'), false, 'ab\uFFFDcd', 'text', true],
    ['JSON nested deeper than JSON_MAX_DEPTH, kept as text', Buffer.from(deep), true, deep, 'text', false],
  ])('%s', (_name, raw, isComplete, body, format, isAltered) => {
    expect(decodeResponseBody(raw, isComplete)).toEqual({
      responseBody: body,
      responseFormat: format,
      responseBodyAltered: isAltered,
    });
  });
});

describe('responseSizeBytes', () => {
  it('is the larger of the bytes received and the declared length', () => {
    expect(responseSizeBytes(1024, 5000)).toBe(5000);
    expect(responseSizeBytes(3000, null)).toBe(3000);
    expect(responseSizeBytes(20, 20)).toBe(20);
  });
});
