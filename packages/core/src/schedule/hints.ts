/**
 * Hint TTLs. Every hint (interval or one-shot) carries an expiry; a hint without one is invalid and
 * never applies. A hint is active strictly before its expiry: at the expiry instant it is gone.
 */

export function isHintActive(expiresAt: Date | null, now: Date): boolean {
  return expiresAt !== null && expiresAt.getTime() > now.getTime();
}
