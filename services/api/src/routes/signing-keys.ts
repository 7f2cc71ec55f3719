/**
 * The account's outbound signing key (SPEC "Signing keys"). One key per account, created at
 * account setup; rawKey is answered only by create and rotate (with Cache-Control: no-store) and
 * never stored in clear or logged.
 */
import { createSigningKey, getSigningKeyInfo, rotateSigningKey, type IssuedSigningKey } from '@kairos/db';
import { z } from 'zod';
import { audit } from '../audit.js';
import type { RouteRegistry } from '../http/route.js';
import { errorResponses } from './common.js';
import type { ApiDeps } from './deps.js';

const isoTime = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });

const signingKeyInfo = z
  .object({
    hasKey: z.boolean(),
    keyPrefix: z.string().nullable().meta({ description: 'First 8 characters of the key; null when none' }),
    createdAt: isoTime.nullable(),
    rotatedAt: isoTime.nullable().meta({ description: 'Last rotation; null when never rotated' }),
  })
  .meta({ id: 'SigningKeyInfo' });

const issuedSigningKey = z
  .object({
    rawKey: z.string().meta({
      description: 'The key: 64 hexadecimal characters. Shown only now; HMAC-SHA256 key of X-Service-Signature',
    }),
    keyPrefix: z.string(),
    createdAt: isoTime,
    rotatedAt: isoTime.nullable(),
  })
  .meta({ id: 'IssuedSigningKey' });

const NO_STORE = { 'Cache-Control': 'no-store' };
const noStoreHeader = { 'Cache-Control': 'no-store: the body holds a secret' };

function toIssued({ rawKey, key }: IssuedSigningKey) {
  return {
    rawKey,
    keyPrefix: key.keyPrefix,
    createdAt: key.createdAt.toISOString(),
    rotatedAt: key.rotatedAt?.toISOString() ?? null,
  };
}

export function registerSigningKeyRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const { db } = deps;
  const tags = ['Signing keys'];

  routes.add(
    {
      method: 'get',
      path: '/api/signing-keys',
      operationId: 'getSigningKey',
      summary: "The account's signing key (without the key itself)",
      tags,
      responses: { 200: { description: 'Key information', schema: signingKeyInfo }, ...errorResponses() },
    },
    async ({ auth }) => {
      const key = await getSigningKeyInfo(db, auth.accountId);
      return {
        body: {
          hasKey: key !== null,
          keyPrefix: key?.keyPrefix ?? null,
          createdAt: key?.createdAt.toISOString() ?? null,
          rotatedAt: key?.rotatedAt?.toISOString() ?? null,
        },
      };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/signing-keys',
      operationId: 'createSigningKey',
      summary: 'Create the signing key',
      description:
        'Every account gets a key at setup, so this answers 409 CONFLICT unless the key was never created. ' +
        'Outbound requests are signed with the key from the next execution on.',
      tags,
      responses: {
        201: { description: 'The new key; rawKey is shown only now', schema: issuedSigningKey, headers: noStoreHeader },
        ...errorResponses(409),
      },
    },
    async ({ auth }) => {
      const issued = await createSigningKey(db, auth.accountId, deps.masterKey);
      await audit(
        deps,
        auth,
        'signing_key.created',
        { type: 'signing_key', id: issued.key.id },
        {
          keyPrefix: issued.key.keyPrefix,
        },
      );
      return { status: 201, body: toIssued(issued), headers: NO_STORE };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/signing-keys/rotate',
      operationId: 'rotateSigningKey',
      summary: 'Replace the signing key',
      description:
        'The old key is invalid at once: requests signed from now on use the new key, and requests already ' +
        'signed with the old one fail verification. 404 NOT_FOUND when the account has no key.',
      tags,
      responses: {
        200: { description: 'The new key; rawKey is shown only now', schema: issuedSigningKey, headers: noStoreHeader },
        ...errorResponses(404),
      },
    },
    async ({ auth }) => {
      const issued = await rotateSigningKey(db, auth.accountId, deps.masterKey, deps.now());
      await audit(
        deps,
        auth,
        'signing_key.rotated',
        { type: 'signing_key', id: issued.key.id },
        {
          keyPrefix: issued.key.keyPrefix,
        },
      );
      return { body: toIssued(issued), headers: NO_STORE };
    },
  );
}
