import { AppError, ERROR_STATUS } from './errors.js';
import { isId, newId } from './ids.js';

describe('AppError', () => {
  it.each(Object.entries(ERROR_STATUS))('maps %s to HTTP %i', (code, status) => {
    const error = new AppError(code as keyof typeof ERROR_STATUS, 'message');
    expect(error.status).toBe(status);
    expect(error.toBody()).toEqual({ error: { code, message: 'message' } });
  });

  it('carries details into the body', () => {
    const error = new AppError('VALIDATION_ERROR', 'bad', { field: 'baselineIntervalMs' });
    expect(error.toBody().error.details).toEqual({ field: 'baselineIntervalMs' });
  });
});

describe('ids', () => {
  it('are time-ordered UUIDv7 values', () => {
    const first = newId();
    const second = newId();
    expect(isId(first)).toBe(true);
    expect(second > first).toBe(true);
  });

  it('stay strictly increasing and well-formed when many are made in one millisecond (the counter)', () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    const sameMillisecond = ids.filter((id, index) => index > 0 && id.slice(0, 13) === ids[index - 1]!.slice(0, 13));
    expect(sameMillisecond.length).toBeGreaterThan(1_000);
    // Each well-formed (RFC 9562's variant bits: 10xx) and above the one before.
    const wrong = ids.filter(
      (id, index) => !isId(id) || !'89ab'.includes(id[19]!) || (index > 0 && id <= ids[index - 1]!),
    );
    expect(wrong).toEqual([]);
  });

  it.each(['', 'abc', '00000000-0000-4000-8000-000000000000', `${newId()}x`])('rejects %j', (value) => {
    expect(isId(value)).toBe(false);
  });
});
