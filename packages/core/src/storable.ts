/**
 * Storable text: PostgreSQL refuses U+0000 in text and jsonb ("invalid byte sequence" /
 * "unsupported Unicode escape sequence") and refuses a lone UTF-16 surrogate in jsonb (JSON.stringify
 * writes it as the escape "\ud800", which jsonb rejects). One such character in a response body or a
 * model answer, stored as it came, would fail the whole recording batch, and the delivery would be
 * retried with a new HTTP call each time.
 *
 * Two uses, one definition of "unstorable":
 * - data the service records from outside (response bodies, error messages, model output) is
 *   cleaned: each U+0000 and each lone surrogate becomes U+FFFD REPLACEMENT CHARACTER, the character
 *   Unicode defines for "a character that could not be represented" (and what a UTF-8 decoder already
 *   puts in place of invalid bytes, so a body reads the same whichever way it was damaged); JSON keeps
 *   its structure, strings and object keys are cleaned recursively;
 * - API input is refused instead (400 VALIDATION_ERROR naming the field): a caller's own data is
 *   never silently changed.
 */

/** U+0000, or a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what is matched
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

export const REPLACEMENT_CHARACTER = '\uFFFD';

export function hasUnstorableText(text: string): boolean {
  return UNSTORABLE.test(text);
}

/** The text with every U+0000 and lone surrogate replaced by U+FFFD (the same string when none). */
export function toStorableText(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, REPLACEMENT_CHARACTER) : text;
}

/**
 * Deepest JSON nesting the service stores or accepts. JSON.parse reads any depth, but
 * JSON.stringify (used to write jsonb and to answer) overflows the call stack near 10,000 levels on
 * Node 20's default stack, and no real payload comes near 1,000.
 */
export const JSON_MAX_DEPTH = 1000;

export interface StorableValue<T> {
  value: T;
  /** Whether anything was replaced. */
  isAltered: boolean;
}

/**
 * A JSON value (as JSON.parse returns it) with every string and object key made storable, or null
 * when it nests deeper than JSON_MAX_DEPTH. Two keys that differ only in unstorable characters
 * become one; the later one wins, as in JSON.parse.
 */
export function toStorableJson(value: unknown): StorableValue<unknown> | null {
  let isAltered = false;
  let isTooDeep = false;
  const clean = (node: unknown, depth: number): unknown => {
    if (typeof node === 'string') {
      const text = toStorableText(node);
      if (text !== node) isAltered = true;
      return text;
    }
    if (node === null || typeof node !== 'object') return node;
    if (depth >= JSON_MAX_DEPTH) {
      isTooDeep = true;
      return null;
    }
    if (Array.isArray(node)) return node.map((child) => clean(child, depth + 1));
    const result: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node)) {
      const storableKey = toStorableText(key);
      if (storableKey !== key) isAltered = true;
      result[storableKey] = clean(child, depth + 1);
    }
    return result;
  };
  const cleaned = clean(value, 0);
  return isTooDeep ? null : { value: cleaned, isAltered };
}

export interface UnstorableField {
  /** Where the problem is: object keys and array indexes from the root. */
  path: (string | number)[];
  /** text: the string at path; key: the last key of path itself; depth: nested deeper than JSON_MAX_DEPTH. */
  reason: 'text' | 'key' | 'depth';
}

/** The first unstorable string (value or object key) or too-deep nesting in a JSON-like value, depth first. */
export function findUnstorableField(value: unknown, path: (string | number)[] = []): UnstorableField | null {
  if (typeof value === 'string') return hasUnstorableText(value) ? { path, reason: 'text' } : null;
  if (value === null || typeof value !== 'object') return null;
  if (path.length >= JSON_MAX_DEPTH) return { path, reason: 'depth' };
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((child, index) => [index, child])
    : Object.entries(value);
  for (const [key, child] of entries) {
    if (typeof key === 'string' && hasUnstorableText(key)) return { path: [...path, key], reason: 'key' };
    const found = findUnstorableField(child, [...path, key]);
    if (found) return found;
  }
  return null;
}
