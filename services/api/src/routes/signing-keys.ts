/**
 * The account's outbound signing key. One key per account, created at
 * account setup; rawKey is answered only by create and rotate (with Cache-Control: no-store) and
 * never stored in clear or logged. With the account setting signingKeyGraceMinutes > 0 a rotation
 * keeps the previous key signing until its window ends (previousKeyPrefix / previousExpiresAt);
 * revoke-previous ends the window at once (404 NOT_FOUND when no window runs).
 * Shown once: an account created at sign-in has never shown its key, so reveal answers
 * it once (revealedAt null in the info), then 409 CONFLICT; create, rotate and the operator CLI's
 * account creation show the key themselves and count as revealed.
 */
import {
  createSigningKey,
  getSigningKeyInfo,
  revealSigningKey,
  revokePreviousSigningKey,
  rotateSigningKey,
  type IssuedSigningKey,
  type SigningKeyInfo,
} from '@kairos/db';
import { z } from 'zod';
import { audit } from '../audit.js';
import type { AuthContext } from '../auth/context.js';
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
    previousKeyPrefix: z.string().nullable().meta({
      description: 'The replaced key, still signing beside the current one until previousExpiresAt; null when none',
    }),
    previousExpiresAt: isoTime.nullable().meta({
      description: 'End of the rotation grace window (account setting signingKeyGraceMinutes); null when none',
    }),
    revealedAt: isoTime.nullable().meta({
      description:
        'When the raw key was shown (create, rotate, account creation by the operator CLI, or reveal); null: never ' +
        'shown yet, POST /api/signing-keys/reveal answers it once',
    }),
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
    previousKeyPrefix: z.string().nullable(),
    previousExpiresAt: isoTime.nullable(),
  })
  .meta({ id: 'IssuedSigningKey' });

const NO_STORE = { 'Cache-Control': 'no-store' };
const noStoreHeader = { 'Cache-Control': 'no-store: the body holds a secret' };

/** The previous key while its window runs; an expired one is stored until the next rotation but shown as none. */
function previousKeyOf(key: SigningKeyInfo | null, now: Date) {
  const isActive = key?.previousExpiresAt != null && key.previousExpiresAt > now;
  return {
    previousKeyPrefix: isActive ? (key.previousKeyPrefix ?? null) : null,
    previousExpiresAt: isActive ? (key.previousExpiresAt?.toISOString() ?? null) : null,
  };
}

function toInfo(key: SigningKeyInfo | null, now: Date) {
  return {
    hasKey: key !== null,
    keyPrefix: key?.keyPrefix ?? null,
    createdAt: key?.createdAt.toISOString() ?? null,
    rotatedAt: key?.rotatedAt?.toISOString() ?? null,
    ...previousKeyOf(key, now),
    revealedAt: key?.revealedAt?.toISOString() ?? null,
  };
}

function toIssued({ rawKey, key }: IssuedSigningKey, now: Date) {
  return {
    rawKey,
    keyPrefix: key.keyPrefix,
    createdAt: key.createdAt.toISOString(),
    rotatedAt: key.rotatedAt?.toISOString() ?? null,
    ...previousKeyOf(key, now),
  };
}

export function registerSigningKeyRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const { db } = deps;
  const tags = ['Signing keys'];
  /** The audit event of an answer that shows a key (its prefix only, never the key). */
  const auditIssued = (
    auth: AuthContext,
    action: string,
    { key }: IssuedSigningKey,
    details: Record<string, unknown> = {},
  ) => audit(deps, auth, action, { type: 'signing_key', id: key.id }, { keyPrefix: key.keyPrefix, ...details });

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
      return { body: toInfo(key, deps.now()) };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/signing-keys',
      role: 'admin',
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
      const issued = await createSigningKey(db, auth.accountId, deps.masterKey, deps.now());
      await auditIssued(auth, 'signing_key.created', issued);
      return { status: 201, body: toIssued(issued, deps.now()), headers: NO_STORE };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/signing-keys/rotate',
      role: 'admin',
      operationId: 'rotateSigningKey',
      summary: 'Replace the signing key',
      description:
        'The old key is invalid at once: requests signed from now on use the new key, and requests already ' +
        'signed with the old one fail verification. 404 NOT_FOUND when the account has no key. ' +
        'Opt-in grace window: with the account setting signingKeyGraceMinutes above 0, the old key keeps signing ' +
        'beside the new one until previousExpiresAt (X-Service-Signature: "sha256=<new> sha256=<old>"); a ' +
        'rotation inside a window replaces the previous key with the one just rotated out.',
      tags,
      responses: {
        200: { description: 'The new key; rawKey is shown only now', schema: issuedSigningKey, headers: noStoreHeader },
        ...errorResponses(404),
      },
    },
    async ({ auth }) => {
      const now = deps.now();
      const issued = await rotateSigningKey(db, auth.accountId, deps.masterKey, now);
      await auditIssued(auth, 'signing_key.rotated', issued, {
        previousKeyPrefix: issued.key.previousKeyPrefix,
        previousExpiresAt: issued.key.previousExpiresAt?.toISOString() ?? null,
      });
      return { body: toIssued(issued, now), headers: NO_STORE };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/signing-keys/reveal',
      role: 'admin',
      operationId: 'revealSigningKey',
      summary: 'Show the signing key once, if it was never shown',
      description:
        'An account created at sign-in (web UI) gets its key without seeing it; this answers the raw key once, ' +
        'so receivers can verify signatures without a rotation, and marks it revealed (revealedAt). Of concurrent ' +
        'calls exactly one gets the key. 409 CONFLICT once the key was shown (by create, rotate, account creation ' +
        'by the operator CLI, or an earlier reveal; details.revealedAt says when): rotate for a new one. ' +
        '404 NOT_FOUND when the account has no key.',
      tags,
      responses: {
        200: { description: 'The key; shown only now', schema: issuedSigningKey, headers: noStoreHeader },
        ...errorResponses(404, 409),
      },
    },
    async ({ auth }) => {
      const issued = await revealSigningKey(db, auth.accountId, deps.masterKey, deps.now());
      await auditIssued(auth, 'signing_key.revealed', issued);
      return { body: toIssued(issued, deps.now()), headers: NO_STORE };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/signing-keys/revoke-previous',
      role: 'admin',
      operationId: 'revokePreviousSigningKey',
      summary: 'End the rotation grace window now',
      description:
        'The previous key stops signing from the next request on; only the current key signs. ' +
        '404 NOT_FOUND when no previous key is in its grace window (none kept, expired, already revoked, or no key).',
      tags,
      responses: {
        200: { description: 'The key information, without a previous key', schema: signingKeyInfo },
        ...errorResponses(404),
      },
    },
    async ({ auth }) => {
      const now = deps.now();
      const { key, revokedKeyPrefix } = await revokePreviousSigningKey(db, auth.accountId, now);
      await audit(
        deps,
        auth,
        'signing_key.previous_revoked',
        { type: 'signing_key', id: key.id },
        { keyPrefix: key.keyPrefix, revokedKeyPrefix },
      );
      return { body: toInfo(key, now) };
    },
  );
}
