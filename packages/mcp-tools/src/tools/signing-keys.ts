import { z } from 'zod';
import type { IssuedSigningKey } from '../api-client.js';
import { CHANGE, READ_ONLY, defineTool } from '../tool.js';

const noArguments = z.strictObject({});
const issuedSummary = (key: IssuedSigningKey) =>
  `New signing key ${key.keyPrefix}… (shown only now): store rawKey where your endpoints verify X-Service-Signature.`;

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
    run: (api) => api.getSigningKey(),
    summarize: (info) =>
      info.hasKey
        ? `Signing key ${info.keyPrefix}… created ${info.createdAt}, rotated ${info.rotatedAt ?? 'never'}.`
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
    run: (api) => api.createSigningKey(),
    summarize: issuedSummary,
  }),
  defineTool({
    name: 'rotateSigningKey',
    title: 'Rotate the signing key',
    description:
      'Replaces the signing key and returns the new rawKey once. The old key is invalid at once: requests ' +
      'already signed with it fail verification. NOT_FOUND when the account has no key.',
    input: noArguments,
    annotations: { ...CHANGE, destructiveHint: true },
    run: (api) => api.rotateSigningKey(),
    summarize: issuedSummary,
  }),
];
