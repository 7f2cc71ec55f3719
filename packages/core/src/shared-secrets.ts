/**
 * Shared secrets: an account's named values that endpoints reference as `{{secrets.NAME}}` in their
 * URL, headers and body. The API stores and shows the reference; the executor puts the value in at
 * call time and masks it in everything it records.
 */
import { z } from 'zod';

/** What a secret is called: letters, digits and _, starting with a letter or _ (1 to 64 characters). */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const SECRET_VALUE_MAX_LENGTH = 8192;

export const secretName = z
  .string()
  .regex(SECRET_NAME_PATTERN, 'must be 1 to 64 letters, digits and _, starting with a letter or _')
  .meta({ description: 'The name endpoints reference as {{secrets.NAME}}', example: 'BILLING_TOKEN' });

export const secretValue = z
  .string()
  .min(1, 'must not be empty')
  .max(SECRET_VALUE_MAX_LENGTH, `must be at most ${SECRET_VALUE_MAX_LENGTH} characters`)
  .meta({ description: 'The value; write-only (never answered)' });

/** `{{secrets.NAME}}`, spaces allowed inside the braces as in the other templates. */
const REFERENCE_PATTERN = /\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}/g;
const REFERENCE_START = '{{';

/** The reference text of a secret, as shown in place of its value. */
export const secretReference = (name: string): string => `{{secrets.${name}}}`;

function collectNames(value: unknown, names: Set<string>): void {
  if (typeof value === 'string') {
    if (!value.includes(REFERENCE_START)) return;
    for (const match of value.matchAll(REFERENCE_PATTERN)) names.add(match[1]!);
  } else if (Array.isArray(value)) {
    for (const item of value) collectNames(item, names);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) collectNames(item, names);
  }
}

/** The names of the secrets a URL, headers or body reference (in string values, at any depth). */
export function referencedSecretNames(...values: unknown[]): string[] {
  const names = new Set<string>();
  for (const value of values) collectNames(value, names);
  return [...names];
}

/** `text` with every reference replaced by its value (`encode`d, e.g. for a URL); unknown names stay. */
export function substituteSecrets(
  text: string,
  values: ReadonlyMap<string, string>,
  encode: (value: string) => string = String,
): string {
  if (!text.includes(REFERENCE_START)) return text;
  return text.replace(REFERENCE_PATTERN, (reference: string, name: string) => {
    const value = values.get(name);
    return value === undefined ? reference : encode(value);
  });
}

/** A JSON body with the references of its string values (at any depth; keys untouched) replaced. */
export function substituteSecretsDeep(value: unknown, values: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return substituteSecrets(value, values);
  if (Array.isArray(value)) return value.map((item) => substituteSecretsDeep(item, values));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteSecretsDeep(item, values)]));
  }
  return value;
}

/**
 * `text` with every occurrence of a secret's value (as sent, and percent-encoded as a URL carries it)
 * replaced by its reference: what runs, errors and logs show.
 */
export function maskSecrets(text: string, values: ReadonlyMap<string, string>): string {
  let masked = text;
  for (const [name, value] of values) {
    if (!value) continue;
    for (const form of new Set([value, encodeURIComponent(value)])) {
      if (masked.includes(form)) masked = masked.split(form).join(secretReference(name));
    }
  }
  return masked;
}

/** A JSON value with maskSecrets applied to its every string (keys too: a response may echo a value as a key). */
export function maskSecretsDeep(value: unknown, values: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return maskSecrets(value, values);
  if (Array.isArray(value)) return value.map((item) => maskSecretsDeep(item, values));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [maskSecrets(key, values), maskSecretsDeep(item, values)]),
    );
  }
  return value;
}
