/**
 * User codes of the device flow (RFC 8628): the api shows them as XXXX-XXXX and ignores case,
 * dashes and spaces (services/api/src/auth/device-flow.ts). The page checks only the shape, so a
 * typo is caught before a request; whether the code exists is the api's answer.
 */

export const USER_CODE_LENGTH = 8;

/** What a person typed → 8 upper-case letters, or null when it cannot be a user code. */
export function normalizeUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, '');
  return code.length === USER_CODE_LENGTH && /^[A-Z]+$/.test(code) ? code : null;
}

/** "bcdfghjk" → "BCDF-GHJK"; input that is not a code is returned trimmed, as typed. */
export function formatUserCode(input: string): string {
  const code = normalizeUserCode(input);
  return code ? `${code.slice(0, 4)}-${code.slice(4)}` : input.trim();
}
