/**
 * API keys of the account (Settings > API Keys): create (the key is shown once), list, revoke.
 * Keys are account-wide (any key or session of the account sees all of them; a device access token
 * manages none: RouteSpec.refusesAccessTokens) and stored as
 * SHA-256 only. Revocation takes effect at once in this process and within
 * KAIROS_AUTH_CACHE_SECONDS (default 10 s) in other api replicas.
 */
import { API_KEY_SCOPES, AppError, trimmedName } from '@kairos/core';
import { createApiKey, listApiKeys, revokeApiKey, type ApiKey } from '@kairos/db';
import { z } from 'zod';
import { audit } from '../audit.js';
import type { RouteRegistry } from '../http/route.js';
import { TOTAL_COUNT_HEADER, errorResponses, isoOrNull, isoTime } from './common.js';
import type { ApiDeps } from './deps.js';

const apiKeyRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().meta({ description: 'First characters of the key, to recognise it (kairos_…)' }),
    createdAt: isoTime,
    lastUsedAt: isoTime.nullable().meta({ description: 'Updated at most once a minute' }),
    revokedAt: isoTime.nullable(),
    scope: z.enum(API_KEY_SCOPES).meta({
      description:
        "read: acts as a viewer (reads only); write: everything its creator's role allows (checked on every call)",
    }),
    expiresAt: isoTime.nullable().meta({ description: 'The key stops working at this time; null: never' }),
  })
  .meta({ id: 'ApiKey' });

const createdApiKey = apiKeyRecord
  .extend({ apiKey: z.string().meta({ description: 'The key: send as x-api-key. Shown only now' }) })
  .meta({ id: 'CreatedApiKey' });

const createApiKeyInput = z
  .strictObject({
    name: trimmedName,
    scope: z.enum(API_KEY_SCOPES).default('write').meta({
      description: 'read: acts as a viewer (and is offered the read-only MCP tools); write (default): as its creator',
    }),
    expiresAt: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'When the key stops working (ISO 8601, in the future); omitted: never' }),
  })
  .meta({ id: 'CreateApiKeyInput' });

function toApiKeyRecord(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: isoOrNull(key.lastUsedAt),
    revokedAt: isoOrNull(key.revokedAt),
    scope: key.scope === 'read' ? ('read' as const) : ('write' as const),
    expiresAt: isoOrNull(key.expiresAt),
  };
}

export function registerApiKeyRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const tags = ['API keys'];

  routes.add(
    {
      method: 'post',
      path: '/api/api-keys',
      role: 'admin',
      operationId: 'createApiKey',
      summary: 'Create an API key',
      description: 'The key is in the response only (Cache-Control: no-store); it cannot be read again.',
      tags,
      refusesAccessTokens: true,
      body: createApiKeyInput,
      responses: {
        201: { description: 'The new key', schema: createdApiKey, headers: { 'Cache-Control': 'no-store' } },
        ...errorResponses(400),
      },
    },
    async ({ auth, body }) => {
      const expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
      if (expiresAt && expiresAt.getTime() <= deps.now().getTime()) {
        throw new AppError('VALIDATION_ERROR', 'expiresAt must be in the future', { field: 'expiresAt' });
      }
      // The new key acts for the caller's user, so it never exceeds the caller's role (checked on
      // every call: demoting the user demotes the key). A key created by a userless key is userless too.
      const { record, raw } = await createApiKey(deps.db, auth.accountId, body.name, auth.userId, {
        scope: body.scope,
        expiresAt,
      });
      await audit(
        deps,
        auth,
        'api_key.created',
        { type: 'api_key', id: record.id },
        { name: record.name, prefix: record.prefix, scope: record.scope, expiresAt: isoOrNull(record.expiresAt) },
      );
      return {
        status: 201,
        body: { ...toApiKeyRecord(record), apiKey: raw },
        headers: { 'Cache-Control': 'no-store' },
      };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/api-keys',
      operationId: 'listApiKeys',
      summary: "List the account's API keys, newest first",
      description: 'Revoked keys are listed too (revokedAt set).',
      tags,
      refusesAccessTokens: true,
      responses: {
        200: {
          description: 'All keys of the account',
          schema: z.array(apiKeyRecord),
          headers: { [TOTAL_COUNT_HEADER]: 'Number of keys' },
        },
        ...errorResponses(),
      },
    },
    async ({ auth }) => {
      const keys = await listApiKeys(deps.db, auth.accountId);
      return { body: keys.map(toApiKeyRecord), headers: { [TOTAL_COUNT_HEADER]: String(keys.length) } };
    },
  );

  routes.add(
    {
      method: 'delete',
      path: '/api/api-keys/:keyId',
      role: 'admin',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      description: 'The key stops working at once (the key used for this call may revoke itself). Idempotent.',
      tags,
      refusesAccessTokens: true,
      responses: {
        200: {
          description: 'The revoked key',
          schema: z.object({ success: z.literal(true), apiKey: apiKeyRecord }).meta({ id: 'RevokeApiKeyResult' }),
        },
        ...errorResponses(404),
      },
    },
    async ({ auth, params }) => {
      const startedAtMs = Date.now();
      const key = await revokeApiKey(deps.db, auth.accountId, params.keyId!);
      if (!key) throw new AppError('NOT_FOUND', 'API key not found', { id: params.keyId });
      deps.apiKeys.evictKey(key.id);
      // revokeApiKey is idempotent: only a revocation made by this request is recorded.
      if (key.revokedAt && key.revokedAt.getTime() >= startedAtMs) {
        await audit(
          deps,
          auth,
          'api_key.revoked',
          { type: 'api_key', id: key.id },
          { name: key.name, prefix: key.prefix },
        );
      }
      return { body: { success: true, apiKey: toApiKeyRecord(key) } };
    },
  );
}
