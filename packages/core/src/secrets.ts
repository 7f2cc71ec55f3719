import { createHash, randomBytes } from 'node:crypto';

/** SHA-256 hex of a bearer secret (API key, access token, session cookie). Only hashes are stored. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export interface GeneratedSecret {
  /** Shown to the user once. */
  raw: string;
  /** Visible, non-secret prefix used to recognise it in lists. */
  prefix: string;
  hash: string;
}

/**
 * `<kind>_<43 chars of base64url>` (256 bits). The kind makes a leaked secret recognisable
 * (secret scanners) and tells API keys from access tokens at a glance.
 */
export function generateSecret(kind: 'kairos' | 'kat' | 'kls' | 'kinv'): GeneratedSecret {
  const raw = `${kind}_${randomBytes(32).toString('base64url')}`;
  return { raw, prefix: raw.slice(0, kind.length + 7), hash: hashSecret(raw) };
}
