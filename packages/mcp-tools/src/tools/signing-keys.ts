import { SIGNING_KEY_GRACE_MAX_MINUTES } from '@kairos/core';
import { z } from 'zod';
import { unwrap, type Schemas } from '@kairos/client';
import { CHANGE, IDEMPOTENT_CHANGE, READ_ONLY, defineTool } from '../tool.js';

const noArguments = z.strictObject({});
const issuedSummary = (key: Schemas['IssuedSigningKey']) =>
  `New signing key ${key.keyPrefix}… (shown only now): store rawKey where your endpoints verify X-Service-Signature.` +
  (key.previousExpiresAt
    ? ` The previous key ${key.previousKeyPrefix}… keeps signing beside it until ${key.previousExpiresAt}.`
    : '');

// Output schemas are left out here: the API declares these records in its route module, not in core.
export const signingKeyTools = [
  defineTool({
    name: 'getSigningKey',
    title: "The account's signing key (without the key)",
    description:
      'Whether the account has a signing key, its visible prefix, when it was created and last rotated. ' +
      'Outbound requests carry X-Service-Signature: sha256=HMAC-SHA256(key, "<X-Service-Timestamp>.<body>").',
    input: noArguments,
    annotations: READ_ONLY,
    run: (api) => unwrap(api.GET('/api/signing-keys')),
    summarize: (info) =>
      info.hasKey
        ? `Signing key ${info.keyPrefix}… created ${info.createdAt}, rotated ${info.rotatedAt ?? 'never'}.` +
          (info.previousExpiresAt
            ? ` Previous key ${info.previousKeyPrefix}… still signs until ${info.previousExpiresAt}.`
            : '')
        : 'The account has no signing key: outbound requests are not signed.',
  }),
  defineTool({
    name: 'createSigningKey',
    title: 'Create the signing key',
    description:
      'Creates the account signing key and returns rawKey (64 hex characters) once. Every account gets a key ' +
      'at setup, so this is refused with CONFLICT unless the key was never created; use rotateSigningKey.',
    input: noArguments,
    annotations: CHANGE,
    run: (api) => unwrap(api.POST('/api/signing-keys')),
    summarize: issuedSummary,
  }),
  defineTool({
    name: 'rotateSigningKey',
    title: 'Rotate the signing key',
    description:
      'Replaces the signing key and returns the new rawKey once. The old key is invalid at once: requests ' +
      'already signed with it fail verification, unless the account has a grace window ' +
      '(setSigningKeyGraceMinutes): then requests carry both signatures until previousExpiresAt. ' +
      'NOT_FOUND when the account has no key.',
    input: noArguments,
    annotations: { ...CHANGE, destructiveHint: true },
    run: (api) => unwrap(api.POST('/api/signing-keys/rotate')),
    summarize: issuedSummary,
  }),
  defineTool({
    name: 'setSigningKeyGraceMinutes',
    title: 'Set the signing key rotation grace window',
    description:
      `Minutes (0 to ${SIGNING_KEY_GRACE_MAX_MINUTES}, i.e. 7 days) the previous key keeps signing after a rotation, ` +
      'beside the new one (X-Service-Signature: "sha256=<new> sha256=<old>"), so receivers can switch keys ' +
      'without failed verifications. 0 (default): the old key is invalid at once. Applies to the next rotation.',
    input: z.strictObject({
      minutes: z.number().int().min(0).max(SIGNING_KEY_GRACE_MAX_MINUTES).describe('Grace window in minutes'),
    }),
    annotations: IDEMPOTENT_CHANGE,
    run: async (api, { minutes }) =>
      (await unwrap(api.PATCH('/api/account/settings', { body: { signingKeyGraceMinutes: minutes } }))).settings,
    summarize: (settings) =>
      settings.signingKeyGraceMinutes === 0
        ? 'No grace window: a rotation makes the old key invalid at once.'
        : `After a rotation the previous key keeps signing for ${settings.signingKeyGraceMinutes} minutes.`,
  }),
  defineTool({
    name: 'revokePreviousSigningKey',
    title: 'End the rotation grace window now',
    description:
      'The previous signing key stops signing from the next request on; only the current key signs. ' +
      'NOT_FOUND when no previous key is in its grace window.',
    input: noArguments,
    annotations: { ...CHANGE, destructiveHint: true },
    run: (api) => unwrap(api.POST('/api/signing-keys/revoke-previous')),
    summarize: (info) => `Only the current signing key ${info.keyPrefix}… signs now.`,
  }),
];
