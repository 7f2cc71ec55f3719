import { randomBytes } from 'node:crypto';
import { decryptSecret } from './secret-box.js';
import { maskHeaderValues, openHeaders, sealHeaders, sensitiveHeaderValues } from './sealed-headers.js';

const key = randomBytes(32);
const open = (sealed: string) => decryptSecret(sealed, key);

describe('sealed headers', () => {
  it('seals the values the API masks, keeps the others and secret references plain, and opens them back', () => {
    const headers = {
      Authorization: 'Bearer t0ken-value',
      'X-Api-Key': 'k-123456',
      'X-Secret-Ref': 'Bearer {{secrets.TOKEN}}',
      Accept: 'application/json',
    };
    const sealed = sealHeaders(headers, key);
    expect(sealed.headers).toEqual({
      Authorization: '********',
      'X-Api-Key': '********',
      'X-Secret-Ref': 'Bearer {{secrets.TOKEN}}',
      Accept: 'application/json',
    });
    expect(sealed.sealedHeaders).not.toContain('t0ken');
    expect(openHeaders(sealed.headers, sealed.sealedHeaders, open)).toEqual(headers);
  });

  it('seals nothing without a sensitive value, and reads a plain row as it is', () => {
    expect(sealHeaders({ Accept: 'text/csv' }, key)).toEqual({ headers: { Accept: 'text/csv' }, sealedHeaders: null });
    expect(sealHeaders(null, key)).toEqual({ headers: null, sealedHeaders: null });
    // The mask itself (a value to keep) is never sealed.
    expect(sealHeaders({ Authorization: '********' }, key).sealedHeaders).toBeNull();
    expect(openHeaders({ Authorization: 'plain' }, null, open)).toEqual({ Authorization: 'plain' });
  });

  it('fails to open under another key', () => {
    const sealed = sealHeaders({ Authorization: 'Bearer x' }, key);
    expect(() => openHeaders(sealed.headers, sealed.sealedHeaders, (s) => decryptSecret(s, randomBytes(32)))).toThrow();
  });

  it('masks the values and credentials a record must not show, long enough to be secrets', () => {
    const values = sensitiveHeaderValues({ Authorization: 'Bearer abcdef123', 'X-Key': '1', Accept: 'abcdef123' });
    expect(values).toEqual(['Bearer abcdef123', 'abcdef123']);
    expect(maskHeaderValues({ echo: 'got abcdef123', n: 1, list: ['Bearer abcdef123'] }, values)).toEqual({
      echo: 'got ********',
      n: 1,
      list: ['********'],
    });
    expect(maskHeaderValues('a=abcdef123%2B', ['abcdef123+'])).toBe('a=********');
  });
});
