import fc from 'fast-check';
import { latenessFromHistogram } from './dashboard.js';

/** percentile_cont over the expanded, sorted values: what the dashboard computed before. */
function percentileCont(sorted: number[], p: number): number {
  const position = p * (sorted.length - 1);
  const below = sorted[Math.floor(position)]!;
  return below + (position - Math.floor(position)) * (sorted[Math.ceil(position)]! - below);
}

describe('latenessFromHistogram', () => {
  it('answers zeros for no runs', () => {
    expect(latenessFromHistogram([])).toEqual({ runs: 0, p50Ms: 0, p95Ms: 0, p99Ms: 0, maxMs: 0 });
  });

  it('interpolates like percentile_cont', () => {
    const buckets = [100, 200, 300, 400].map((lateMs) => ({ lateMs, runs: 1 }));
    expect(latenessFromHistogram(buckets)).toEqual({ runs: 4, p50Ms: 250, p95Ms: 385, p99Ms: 397, maxMs: 400 });
    expect(latenessFromHistogram([{ lateMs: 7, runs: 1000 }])).toMatchObject({ p50Ms: 7, p99Ms: 7, maxMs: 7 });
  });

  it('equals percentile_cont over the expanded values for any histogram', () => {
    const histogram = fc
      .uniqueArray(fc.integer({ min: -50, max: 5000 }), { minLength: 1, maxLength: 30 })
      .chain((values) =>
        fc.tuple(
          fc.constant(values.sort((a, b) => a - b)),
          fc.array(fc.integer({ min: 1, max: 40 }), {
            minLength: values.length,
            maxLength: values.length,
          }),
        ),
      );
    fc.assert(
      fc.property(histogram, ([values, counts]) => {
        const buckets = values.map((lateMs, i) => ({ lateMs, runs: counts[i]! }));
        const expanded = buckets.flatMap((bucket) => Array<number>(bucket.runs).fill(bucket.lateMs));
        expect(latenessFromHistogram(buckets)).toEqual({
          runs: expanded.length,
          p50Ms: Math.round(percentileCont(expanded, 0.5)),
          p95Ms: Math.round(percentileCont(expanded, 0.95)),
          p99Ms: Math.round(percentileCont(expanded, 0.99)),
          maxMs: expanded[expanded.length - 1],
        });
      }),
      { numRuns: 200 },
    );
  });
});
