import { randomBytes } from 'node:crypto';
import {
  parseRecipientConfirmation,
  recipientConfirmationUrl,
  signRecipientConfirmation,
  verifyRecipientConfirmation,
} from './recipient-confirmation.js';

const masterKey = randomBytes(32);
const now = new Date('2026-11-28T12:00:00.000Z');
const confirmation = {
  channelId: '01a22351-adb4-7124-b945-5d5b6d13cab0',
  recipient: 'oncall@example.test',
  expiresAt: new Date('2026-12-05T12:00:00.000Z'),
};
const signature = signRecipientConfirmation(masterKey, confirmation);

describe('recipient confirmation links', () => {
  it('verifies its own signature until it expires', () => {
    expect(verifyRecipientConfirmation(masterKey, confirmation, signature, now)).toBe('valid');
    expect(verifyRecipientConfirmation(masterKey, confirmation, signature, confirmation.expiresAt)).toBe('expired');
  });

  it.each([
    ['another channel', { ...confirmation, channelId: '01a22351-adb4-7124-b945-5d5b6d13cab1' }],
    ['another recipient', { ...confirmation, recipient: 'attacker@example.test' }],
    ['a later expiry', { ...confirmation, expiresAt: new Date('2027-12-05T12:00:00.000Z') }],
  ])('refuses the signature for %s', (_name, altered) => {
    expect(verifyRecipientConfirmation(masterKey, altered, signature, now)).toBe('invalid');
  });

  it('refuses a signature made with another master key, or none', () => {
    expect(verifyRecipientConfirmation(randomBytes(32), confirmation, signature, now)).toBe('invalid');
    expect(verifyRecipientConfirmation(masterKey, confirmation, '', now)).toBe('invalid');
  });

  it('round-trips through the link, which carries no signature until one is added', () => {
    const url = new URL(recipientConfirmationUrl('https://kairos.example', confirmation));
    expect(url.pathname).toBe('/api/notification-recipients/confirm');
    expect(url.searchParams.has('signature')).toBe(false);
    url.searchParams.set('signature', signature);
    const parsed = parseRecipientConfirmation(Object.fromEntries(url.searchParams));
    expect(parsed).toEqual({ confirmation, signature });
  });

  it.each([
    [{}],
    [{ channel: 'c', recipient: 'r', expires: 'soon', signature: 's' }],
    [{ channel: 'c', recipient: 'r', expires: '-5', signature: 's' }],
    [{ channel: 'c', recipient: 'r', expires: '1'.repeat(13), signature: 's' }],
    [{ channel: ['c'], recipient: 'r', expires: '5', signature: 's' }],
    [{ channel: 'c', recipient: 'r', expires: '5', signature: 's'.repeat(65) }],
  ])('parses no confirmation from %j', (fields) => {
    expect(parseRecipientConfirmation(fields)).toBeNull();
  });
});
