/**
 * Notification webhooks are signed in the Standard Webhooks format (headers webhook-id,
 * webhook-timestamp, webhook-signature: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`),
 * with the same account signing key as executions. The format's secret is `whsec_` + base64 of the
 * key bytes; Kairos's key bytes are the rawKey string as UTF-8 (signature.ts: the receiver holds the
 * 64 hex characters as shown), so a receiver builds its secret from the rawKey it was shown:
 *
 *   new Webhook('whsec_' + Buffer.from(rawKey, 'utf8').toString('base64')).verify(body, headers)
 */
export const STANDARD_WEBHOOK_SECRET_PREFIX = 'whsec_';

/** The Standard Webhooks secret of an account signing key (what a receiver passes to `new Webhook`). */
export function standardWebhookSecret(rawKey: string): string {
  return `${STANDARD_WEBHOOK_SECRET_PREFIX}${Buffer.from(rawKey, 'utf8').toString('base64')}`;
}
