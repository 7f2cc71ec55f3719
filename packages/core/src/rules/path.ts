/**
 * The paths a response rule's condition reads (a JSONPath subset), parsed once when the rules are
 * compiled, then resolved against every run:
 *   $             the whole body (a text body is `$` as a string; an empty body is "")
 *   $.a.b         object keys, dotted (any character but . [ ] quotes and white space)
 *   $["a.b"]      a key in brackets, quoted with " or ' (JSON string escapes inside "…")
 *   $.items[0]    an array index; [-1] is the last element
 *   $status       the final HTTP status code (missing when no response arrived)
 *   $durationMs   the call's duration in milliseconds
 * No wildcards, filters or recursive descent: one path names at most one value, so a condition is a
 * plain comparison and costs a few property reads a run.
 *
 * Hand-written rather than jsonpath-plus: resolving a compiled path took 0.03–0.05 µs against
 * 5.5–7.5 µs for jsonpath-plus 11.3 on the same body and path (`$.queues[1].depth`), about 150 times
 * faster on the run's hot path (bench/rule-evaluation.ts, docs/benchmarks.md "Response rules").
 */

/** A value the path does not reach (a missing key, an index past the end, a key of a non-object). */
export const MISSING: unique symbol = Symbol('missing');
export type Resolved = unknown;

export const PATH_MAX_LENGTH = 200;

type Step = string | number;

export type CompiledPath =
  | { kind: 'status'; text: string }
  | { kind: 'duration'; text: string }
  | { kind: 'body'; text: string; steps: Step[] }
  /** A stored path that no longer parses (a limit lowered since it was saved): it names no value. */
  | { kind: 'invalid'; text: string };

/** What a path is resolved against: a run's response as recorded. */
export interface ResponseSubject {
  statusCode: number | null;
  durationMs: number;
  responseBody: unknown;
  /** json | text | empty; null when no response arrived (then `$` is missing). */
  responseFormat: string | null;
}

export type PathParse = { ok: true; path: CompiledPath } | { ok: false; message: string };

const DOTTED_KEY = /^[^.[\]"'\s]+/;
const INDEX = /^\[(-?\d{1,9})\]/;

export function parsePath(text: string): PathParse {
  if (text.length > PATH_MAX_LENGTH) return { ok: false, message: `must be at most ${PATH_MAX_LENGTH} characters` };
  if (text === '$status') return { ok: true, path: { kind: 'status', text } };
  if (text === '$durationMs') return { ok: true, path: { kind: 'duration', text } };
  if (!text.startsWith('$'))
    return { ok: false, message: 'must start with $ (the body), or be $status or $durationMs' };
  const steps: Step[] = [];
  let rest = text.slice(1);
  while (rest.length > 0) {
    const at = text.length - rest.length;
    if (rest.startsWith('.')) {
      const key = DOTTED_KEY.exec(rest.slice(1));
      if (!key) return { ok: false, message: `expected a key after "." at character ${at + 1}` };
      steps.push(key[0]);
      rest = rest.slice(1 + key[0].length);
      continue;
    }
    const index = INDEX.exec(rest);
    if (index) {
      steps.push(Number(index[1]));
      rest = rest.slice(index[0].length);
      continue;
    }
    const quoted = parseQuotedKey(rest);
    if (quoted) {
      steps.push(quoted.key);
      rest = rest.slice(quoted.length);
      continue;
    }
    return {
      ok: false,
      message: `unexpected "${rest[0]}" at character ${at + 1}: use .key, [n] or ["key"] (no wildcards or filters)`,
    };
  }
  return { ok: true, path: { kind: 'body', text, steps } };
}

/** `["a.b"]` (a JSON string) or `['a.b']` (no escapes) at the start of `rest`. */
function parseQuotedKey(rest: string): { key: string; length: number } | null {
  if (rest.startsWith('["')) {
    const match = /^\["((?:[^"\\]|\\.)*)"\]/.exec(rest);
    if (!match) return null;
    try {
      return { key: JSON.parse(`"${match[1]}"`) as string, length: match[0].length };
    } catch {
      return null;
    }
  }
  const match = /^\['([^']*)'\]/.exec(rest);
  return match ? { key: match[1]!, length: match[0].length } : null;
}

/** The value the path names in this response, or MISSING. */
export function resolvePath(path: CompiledPath, subject: ResponseSubject): Resolved | typeof MISSING {
  if (path.kind === 'status') return subject.statusCode ?? MISSING;
  if (path.kind === 'duration') return subject.durationMs;
  if (path.kind === 'invalid') return MISSING;
  if (subject.responseFormat === null) return MISSING;
  let value: unknown = subject.responseFormat === 'empty' ? '' : subject.responseBody;
  for (const step of path.steps) {
    if (typeof step === 'number') {
      if (!Array.isArray(value)) return MISSING;
      const index = step < 0 ? value.length + step : step;
      if (index < 0 || index >= value.length) return MISSING;
      value = value[index];
    } else {
      if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, step)) {
        return MISSING;
      }
      value = (value as Record<string, unknown>)[step];
    }
  }
  return value;
}
