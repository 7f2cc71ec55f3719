/**
 * Shared secrets of the account: endpoints reference one as `{{secrets.NAME}}` in their URL,
 * headers and body, and the executor puts its value in at call time. Values are write-only
 * (encrypted at rest under the master key, never answered); names are read by every member,
 * written by admins. A change bumps the account's secrets version so executors reload it before the
 * next run that uses it (packages/queue/src/secrets-version.ts).
 */
import { AppError, encryptSecret, secretName, secretValue } from '@kairos/core';
import { createSecret, deleteSecret, listSecrets, updateSecret, type SecretInfo } from '@kairos/db';
import { bumpSecretsVersion } from '@kairos/queue';
import { z } from 'zod';
import { audit } from '../audit.js';
import type { RouteRegistry } from '../http/route.js';
import { TOTAL_COUNT_HEADER, errorResponses, isoTime } from './common.js';
import type { ApiDeps } from './deps.js';

const secretRecord = z
  .object({
    name: z.string(),
    reference: z.string().meta({ description: 'What endpoints write to use it: {{secrets.NAME}}' }),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: 'Secret' });

const createSecretInput = z.strictObject({ name: secretName, value: secretValue }).meta({ id: 'CreateSecretInput' });
const updateSecretInput = z.strictObject({ value: secretValue }).meta({ id: 'UpdateSecretInput' });

const toRecord = (secret: SecretInfo) => ({
  name: secret.name,
  reference: `{{secrets.${secret.name}}}`,
  createdAt: secret.createdAt.toISOString(),
  updatedAt: secret.updatedAt.toISOString(),
});

function nameOf(raw: string | undefined): string {
  const parsed = secretName.safeParse(raw);
  if (!parsed.success) throw new AppError('NOT_FOUND', 'secret not found', { name: raw ?? '' });
  return parsed.data;
}

export function registerSecretRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const tags = ['Secrets'];
  const changed = async (accountId: string) => {
    try {
      await bumpSecretsVersion(deps.redis, deps.config.KAIROS_QUEUE_PREFIX, accountId);
    } catch (error) {
      // Executors still reload within their cache lifetime (services/executor/src/secrets.ts).
      deps.logger.warn('secrets version not bumped', { error: (error as Error).message });
    }
  };

  routes.add(
    {
      method: 'post',
      path: '/api/secrets',
      role: 'admin',
      operationId: 'createSecret',
      summary: 'Create a shared secret',
      description: 'The value is encrypted at rest and never answered; endpoints use it as {{secrets.NAME}}.',
      tags,
      body: createSecretInput,
      responses: { 201: { description: 'The secret (no value)', schema: secretRecord }, ...errorResponses(400, 409) },
    },
    async ({ auth, body }) => {
      const secret = await createSecret(deps.db, auth.accountId, body.name, encryptSecret(body.value, deps.masterKey));
      await changed(auth.accountId);
      await audit(deps, auth, 'secret.created', { type: 'secret', id: secret.name }, { name: secret.name });
      return { status: 201, body: toRecord(secret) };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/secrets',
      operationId: 'listSecrets',
      summary: "List the account's shared secrets by name (never their values)",
      tags,
      responses: {
        200: {
          description: 'Every secret, by name',
          schema: z.array(secretRecord),
          headers: { [TOTAL_COUNT_HEADER]: 'Number of secrets' },
        },
        ...errorResponses(),
      },
    },
    async ({ auth }) => {
      const secrets = await listSecrets(deps.db, auth.accountId);
      return { body: secrets.map(toRecord), headers: { [TOTAL_COUNT_HEADER]: String(secrets.length) } };
    },
  );

  routes.add(
    {
      method: 'put',
      path: '/api/secrets/:name',
      role: 'admin',
      operationId: 'updateSecret',
      summary: "Change a shared secret's value",
      description: 'Every endpoint that references it sends the new value from its next run.',
      tags,
      body: updateSecretInput,
      responses: { 200: { description: 'The secret (no value)', schema: secretRecord }, ...errorResponses(400, 404) },
    },
    async ({ auth, params, body }) => {
      const name = nameOf(params.name);
      const secret = await updateSecret(deps.db, auth.accountId, name, encryptSecret(body.value, deps.masterKey));
      if (!secret) throw new AppError('NOT_FOUND', 'secret not found', { name });
      await changed(auth.accountId);
      await audit(deps, auth, 'secret.updated', { type: 'secret', id: name }, { name });
      return { body: toRecord(secret) };
    },
  );

  routes.add(
    {
      method: 'delete',
      path: '/api/secrets/:name',
      role: 'admin',
      operationId: 'deleteSecret',
      summary: 'Delete a shared secret',
      description: 'Endpoints that still reference it fail their runs with errorKind secret_missing.',
      tags,
      responses: {
        200: {
          description: 'Deleted',
          schema: z.object({ success: z.literal(true), secret: secretRecord }).meta({ id: 'DeleteSecretResult' }),
        },
        ...errorResponses(404),
      },
    },
    async ({ auth, params }) => {
      const name = nameOf(params.name);
      const secret = await deleteSecret(deps.db, auth.accountId, name);
      if (!secret) throw new AppError('NOT_FOUND', 'secret not found', { name });
      await changed(auth.accountId);
      await audit(deps, auth, 'secret.deleted', { type: 'secret', id: name }, { name });
      return { body: { success: true, secret: toRecord(secret) } };
    },
  );
}
