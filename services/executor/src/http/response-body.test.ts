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
    expect(decodeResponseBody(Buffer.from(raw), isComplete)).toEqual({ responseBody: body, responseFormat: format });
  });
});

describe('responseSizeBytes', () => {
  it('is the larger of the bytes received and the declared length', () => {
    expect(responseSizeBytes(1024, 5000)).toBe(5000);
    expect(responseSizeBytes(3000, null)).toBe(3000);
    expect(responseSizeBytes(20, 20)).toBe(20);
  });
});
