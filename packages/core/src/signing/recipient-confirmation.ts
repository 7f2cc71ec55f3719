/**
 * The confirmation link of an e-mail channel's recipient (double opt-in): an address that is not a
 * verified user of the account receives nothing from the channel until it follows this link.
 *
 * The link names the channel, the address and when it expires, and carries an HMAC-SHA256 of the
 * three under a key derived from the master key (HKDF, its own label): the api and the executors
 * hold the master key already, so nothing is stored per link and a retried mail carries the same
 * link. The signature is never shown to the tenant (the notification's payload has the link without
 * it; the executor signs when it sends the mail), so only the mailbox can confirm.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** Where the link points (an HTML page with a Confirm button: a mail scanner's GET confirms nothing). */
export const RECIPIENT_CONFIRMATION_PATH = '/api/notification-recipients/confirm';
/** A link works for 7 days; a recipient who missed it is sent another by recreating the channel. */
export const RECIPIENT_CONFIRMATION_TTL_MS = 7 * 24 * 3600 * 1000;

export interface RecipientConfirmation {
  channelId: string;
  /** As stored in the channel's recipients. */
  recipient: string;
  expiresAt: Date;
}

const KEY_LABEL = 'kairos notification recipient confirmation v1';
const keys = new WeakMap<Buffer, Buffer>();

function confirmationKey(masterKey: Buffer): Buffer {
  let key = keys.get(masterKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), KEY_LABEL, 32));
    keys.set(masterKey, key);
  }
  return key;
}

const expiresSec = (confirmation: RecipientConfirmation) => Math.floor(confirmation.expiresAt.getTime() / 1000);

/** The link's signature (base64url). */
export function signRecipientConfirmation(masterKey: Buffer, confirmation: RecipientConfirmation): string {
  return createHmac('sha256', confirmationKey(masterKey))
    .update(`${confirmation.channelId}\n${confirmation.recipient}\n${expiresSec(confirmation)}`)
    .digest('base64url');
}

/** Whether `signature` was made for this confirmation, and it has not expired at `now`. */
export function verifyRecipientConfirmation(
  masterKey: Buffer,
  confirmation: RecipientConfirmation,
  signature: string,
  now: Date,
): 'valid' | 'expired' | 'invalid' {
  const expected = Buffer.from(signRecipientConfirmation(masterKey, confirmation));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return confirmation.expiresAt.getTime() <= now.getTime() ? 'expired' : 'valid';
}

/** The link without its signature (what the tenant may see): channel, recipient, expires (Unix seconds). */
export function recipientConfirmationUrl(baseUrl: string, confirmation: RecipientConfirmation): string {
  const url = new URL(RECIPIENT_CONFIRMATION_PATH, baseUrl);
  url.searchParams.set('channel', confirmation.channelId);
  url.searchParams.set('recipient', confirmation.recipient);
  url.searchParams.set('expires', String(expiresSec(confirmation)));
  return url.toString();
}

/** Reads a link's query (or the confirm form's fields); null when one is missing or malformed. */
export function parseRecipientConfirmation(
  fields: Record<string, unknown>,
): { confirmation: RecipientConfirmation; signature: string } | null {
  const { channel, recipient, expires, signature } = fields;
  if (typeof channel !== 'string' || typeof recipient !== 'string' || typeof signature !== 'string') return null;
  const seconds = typeof expires === 'string' && expires.length <= 12 ? Number(expires) : NaN;
  if (!Number.isSafeInteger(seconds) || seconds <= 0) return null;
  if (channel.length > 64 || recipient.length > 254 || signature.length > 64) return null;
  return {
    confirmation: { channelId: channel, recipient, expiresAt: new Date(seconds * 1000) },
    signature,
  };
}
