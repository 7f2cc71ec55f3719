/**
 * A number as typed in a small form, checked against the bounds the form states in its own words
 * ("from 0 to 10,080 minutes"): the number, or null when it is not one or falls outside.
 */
export interface NumberBounds {
  /** Inclusive lower bound. */
  min?: number;
  /** Exclusive lower bound (a TTL must be above 0). */
  above?: number;
  /** Inclusive upper bound. */
  max?: number;
  whole?: boolean;
}

export function numberIn(text: string, bounds: NumberBounds): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return null;
  if (bounds.whole && !Number.isInteger(value)) return null;
  if (bounds.min !== undefined && value < bounds.min) return null;
  if (bounds.above !== undefined && value <= bounds.above) return null;
  if (bounds.max !== undefined && value > bounds.max) return null;
  return value;
}
