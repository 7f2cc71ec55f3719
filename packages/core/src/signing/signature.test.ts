import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import {
  MAX_SIGNATURES_PER_HEADER,
  generateSigningKey,
  signPayload,
  signPayloadWithKeys,
  signingKeyPrefix,
  verifySignature,
} from './signature.js';

const RAW_KEY = '5f0c2a9e8b7d6c5f4e3d2c1b0a998877665544332211ffeeddccbbaa00112233';
const NOW_SEC = 1_790_000_000;

describe('generateSigningKey', () => {
  it('returns 64 lowercase hex characters, different each time', () => {
    const first = generateSigningKey();
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(generateSigningKey()).not.toBe(first);
  });

  it('has a short visible prefix', () => {
    expect(signingKeyPrefix(RAW_KEY)).toBe('5f0c2a9e');
  });
});

describe('signPayload', () => {
  it('is HMAC-SHA256 keyed with the raw key string over "<timestamp>.<body>"', () => {
    const body = '{"since":"2026-11-21T10:00:00.000Z"}';
    const expected = createHmac('sha256', RAW_KEY).update(`${NOW_SEC}.${body}`).digest('hex');
    expect(signPayload(RAW_KEY, NOW_SEC, body)).toBe(`sha256=${expected}`);
  });

  it('signs with each key its own signature, over more keys than the key-object cache holds', () => {
    // 10,001 keys: the first is evicted, then signed again; a key object kept under the wrong raw key
    // or an eviction of the wrong entry would give another key's digest.
    const keys = Array.from(
      { length: 10_001 },
      (_, index) => `${RAW_KEY.slice(0, 58)}${String(index).padStart(6, '0')}`,
    );
    for (const key of [...keys, keys[0]!, keys[10_000]!, keys[5_000]!]) {
      const expected = createHmac('sha256', key).update(`${NOW_SEC}.body`).digest('hex');
      expect(signPayload(key, NOW_SEC, 'body')).toBe(`sha256=${expected}`);
    }
  });

  it('signs the empty body of a GET', () => {
    const expected = createHmac('sha256', RAW_KEY).update(`${NOW_SEC}.`).digest('hex');
    expect(signPayload(RAW_KEY, NOW_SEC, '')).toBe(`sha256=${expected}`);
  });

  it('signs multi-byte bodies as UTF-8', () => {
    const body = '{"name":"Zürich ☀"}';
    const expected = createHmac('sha256', Buffer.from(RAW_KEY, 'utf8'))
      .update(Buffer.from(`${NOW_SEC}.${body}`, 'utf8'))
      .digest('hex');
    expect(signPayload(RAW_KEY, NOW_SEC, body)).toBe(`sha256=${expected}`);
  });

  it('hands out a kept signature only for the same key, second and body', () => {
    // Each step changes one input after a signature was kept: a memo keyed on too little would
    // return the step before's signature.
    const OTHER_KEY = generateSigningKey();
    const longBody = 'x'.repeat(600);
    const steps: [string, number, string][] = [
      [RAW_KEY, NOW_SEC, ''],
      [RAW_KEY, NOW_SEC, ''],
      [RAW_KEY, NOW_SEC + 1, ''],
      [RAW_KEY, NOW_SEC + 1, '{"a":1}'],
      [OTHER_KEY, NOW_SEC + 1, '{"a":1}'],
      [RAW_KEY, NOW_SEC + 1, '{"a":1}'],
      [RAW_KEY, NOW_SEC + 1, longBody],
      [RAW_KEY, NOW_SEC + 1, `${longBody.slice(1)}y`],
      [RAW_KEY, NOW_SEC + 1, '{"a":1}'],
      [RAW_KEY, NOW_SEC, ''],
    ];
    for (const [key, at, body] of steps) {
      const expected = createHmac('sha256', key).update(`${at}.${body}`).digest('hex');
      expect(signPayload(key, at, body)).toBe(`sha256=${expected}`);
    }
  });

  it('rejects a non-integer timestamp (milliseconds passed by mistake would still be an integer)', () => {
    expect(() => signPayload(RAW_KEY, 1.5, '')).toThrow(RangeError);
  });
});

describe('verifySignature', () => {
  const body = '{"a":1}';
  const header = signPayload(RAW_KEY, NOW_SEC, body);

  it.each([
    ['the exact request', RAW_KEY, NOW_SEC, body, header, true],
    ['an upper-case hex digest', RAW_KEY, NOW_SEC, body, header.toUpperCase().replace('SHA256=', 'sha256='), true],
    ['a tampered body', RAW_KEY, NOW_SEC, '{"a":2}', header, false],
    ['a tampered timestamp', RAW_KEY, NOW_SEC + 1, body, header, false],
    ['another key', generateSigningKey(), NOW_SEC, body, header, false],
    ['a missing scheme', RAW_KEY, NOW_SEC, body, header.slice('sha256='.length), false],
    ['a truncated digest', RAW_KEY, NOW_SEC, body, header.slice(0, -2), false],
    ['garbage', RAW_KEY, NOW_SEC, body, 'sha256=not-hex', false],
  ])('%s', (_name, key, timestampSec, receivedBody, receivedHeader, valid) => {
    expect(verifySignature(key, timestampSec, receivedBody, receivedHeader, NOW_SEC)).toBe(valid);
  });

  it.each([
    ['signed now', 0, true],
    ['299 s old', 299, true],
    ['exactly at the 300 s tolerance', 300, true],
    ['301 s old (replay)', 301, false],
    ['301 s in the future', -301, false],
    ['an hour old', 3600, false],
  ])('tolerance window: %s', (_name, ageSec, valid) => {
    const signedAt = NOW_SEC - ageSec;
    expect(verifySignature(RAW_KEY, signedAt, body, signPayload(RAW_KEY, signedAt, body), NOW_SEC)).toBe(valid);
  });

  it('honours a custom tolerance', () => {
    const signedAt = NOW_SEC - 60;
    expect(verifySignature(RAW_KEY, signedAt, body, signPayload(RAW_KEY, signedAt, body), NOW_SEC, 30)).toBe(false);
  });

  it('accepts every signed body and rejects any single-character change (property)', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.nat({ max: 299 }),
        fc.string({ minLength: 1, maxLength: 1 }),
        (payload, age, extra) => {
          const signedAt = NOW_SEC - age;
          const signature = signPayload(RAW_KEY, signedAt, payload);
          return (
            verifySignature(RAW_KEY, signedAt, payload, signature, NOW_SEC) &&
            !verifySignature(RAW_KEY, signedAt, payload + extra, signature, NOW_SEC)
          );
        },
      ),
    );
  });
});

describe('several signatures in one header (rotation grace window)', () => {
  const body = '{"a":1}';
  const OLD_KEY = 'a1'.repeat(32);
  const both = signPayloadWithKeys([RAW_KEY, OLD_KEY], NOW_SEC, body);

  it('lists the current key first, space-separated', () => {
    expect(both).toBe(`${signPayload(RAW_KEY, NOW_SEC, body)} ${signPayload(OLD_KEY, NOW_SEC, body)}`);
  });

  it('with one key is exactly the single signature', () => {
    expect(signPayloadWithKeys([RAW_KEY], NOW_SEC, body)).toBe(signPayload(RAW_KEY, NOW_SEC, body));
  });

  it.each([0, MAX_SIGNATURES_PER_HEADER + 1])('refuses %i keys', (count) => {
    expect(() => signPayloadWithKeys(Array<string>(count).fill(RAW_KEY), NOW_SEC, body)).toThrow(RangeError);
  });

  it.each([
    ['the new key', RAW_KEY, both, true],
    ['the old key', OLD_KEY, both, true],
    ['a third key', generateSigningKey(), both, false],
    ['extra spaces between entries', OLD_KEY, both.replace(' ', '   '), true],
    ['a malformed entry beside a valid one', RAW_KEY, `${both} sha256=zz`, false],
    [
      'more entries than allowed',
      RAW_KEY,
      Array<string>(MAX_SIGNATURES_PER_HEADER + 1)
        .fill(signPayload(RAW_KEY, NOW_SEC, body))
        .join(' '),
      false,
    ],
    ['a tampered body', OLD_KEY, signPayloadWithKeys([RAW_KEY, OLD_KEY], NOW_SEC, '{"a":2}'), false],
  ])('verifies with %s', (_name, key, header, valid) => {
    expect(verifySignature(key, NOW_SEC, body, header, NOW_SEC)).toBe(valid);
  });
});
