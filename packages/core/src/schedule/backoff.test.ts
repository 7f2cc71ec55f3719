import { backoffMultiplier } from './backoff.js';

describe('backoffMultiplier', () => {
  it.each([
    [0, 1],
    [1, 2],
    [2, 4],
    [3, 8],
    [4, 16],
    [5, 32],
    [6, 32],
    [1000, 32],
    [Number.POSITIVE_INFINITY, 32],
    [-1, 1],
    [Number.NaN, 1],
  ])('failureCount %p gives %px', (failureCount, multiplier) => {
    expect(backoffMultiplier(failureCount)).toBe(multiplier);
  });
});
