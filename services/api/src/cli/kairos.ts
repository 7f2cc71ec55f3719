/**
 * Operator CLI. Output contract (scripts rely on it): with --json, exactly one JSON object on
 * stdout; diagnostics go to stderr; exit 0 on success, 1 on a refused operation, 64 on usage errors.
 *
 *   kairos accounts create --email <email> [--name <name>] [--tier free|pro|enterprise] [--operator] --json
 *   kairos login-link [--email <email>] [--json]
 *   kairos keys create --account <accountId> --name <name> --json
 *   kairos keys revoke <keyId> [--json]
 *   kairos users set-role --email <email> --role operator|member [--json]
 *   kairos accounts set-tier <accountId> --tier free|pro|enterprise [--json]
 *   kairos accounts set-quota <accountId> --<quota> <n|default> … [--json]
 *   kairos accounts disable|enable <accountId> [--json]
 *
 * Quotas: requestsPerMinute, burst, maxJobs, maxEndpoints, minIntervalMs, runsPerMonth,
 * aiTokensPerMonth, runRetentionDays; `default` removes the override (the tier's value applies).
 * Account changes are recorded in the account's audit log (actor operator, via cli).
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AppError, currentMasterKeyId, isId, quotaOverridesInput, tierLimits } from '@kairos/core';
import { createApiKey, createDatabase, getAccount, recordAudit, type Database, type Tier } from '@kairos/db';
import {
  countValuesUnderOldKeys,
  rotateMasterKey,
  createAccount,
  revokeApiKeyAsOperator,
  setUserRole,
  updateAccount,
  type AccountChange,
} from '@kairos/db/system';
import { resolveMasterKey } from '@kairos/runtime';
import { issueSignInLink } from '../auth/local-admin.js';
import { loadCliConfig } from '../config.js';
import { OPERATOR_USAGE, QUOTA_OPTIONS } from './usage.js';

const TIERS = ['free', 'pro', 'enterprise'] as const;
const ROLES = ['operator', 'member'] as const;
const USAGE = `usage:
${OPERATOR_USAGE}`;

class UsageError extends Error {}

const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const config = loadCliConfig();
const databaseUrl = config.DATABASE_URL;

/** A fresh machine has no schema yet: apply migrations (quietly) before the first command. */
async function ensureMigrated(db: Database): Promise<void> {
  const ok = await db.pool
    .query(`SELECT to_regclass('public.accounts') AS present`)
    .then((result) => result.rows[0]?.present !== null)
    .catch(() => false);
  if (ok) return;
  // The child inherits the environment: scripts/prisma.mjs falls back to the same DATABASE_URL default.
  const result = spawnSync('node', [join(root, 'scripts/prisma.mjs'), 'deploy'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (result.status !== 0) throw new Error('could not apply database migrations');
}

function print(json: boolean, value: Record<string, unknown>, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      tier: { type: 'string' },
      account: { type: 'string' },
      operator: { type: 'boolean', default: false },
      role: { type: 'string' },
      ...Object.fromEntries(QUOTA_OPTIONS.map((quota) => [quota, { type: 'string' as const }])),
      'batch-size': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [group, command, ...rest] = positionals;
  if (values.help || !group) throw new UsageError(USAGE);

  if (group === 'accounts' && command === 'create') {
    const email = values.email?.trim();
    if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError('--email <email> is required');
    const tier = (values.tier ?? 'free') as Tier;
    if (!TIERS.includes(tier)) throw new UsageError(`--tier must be one of ${TIERS.join(', ')}`);
    // Same resolution as the api service (KAIROS_MASTER_KEY, else the development key file).
    const masterKey = resolveMasterKey({
      value: config.KAIROS_MASTER_KEY,
      file: config.KAIROS_MASTER_KEY_FILE,
      nodeEnv: config.NODE_ENV,
      warn: (message) => console.error(`kairos: ${message}`),
    });
    await withDatabase(async (db) => {
      const created = await createAccount(
        db,
        {
          email,
          // The operator vouches for the address: a verified sign-in with it links to this user.
          emailVerified: true,
          tier,
          operator: values.operator,
          apiKeyName: 'default',
          ...(values.name ? { name: values.name } : {}),
        },
        // Printed below: the key counts as shown, so the web UI does not show it again.
        { masterKey, signingKeyRevealedAt: new Date() },
      );
      print(
        values.json,
        {
          accountId: created.account.id,
          userId: created.user.id,
          email: created.user.email,
          tier: created.account.tier,
          role: created.user.role,
          apiKey: created.apiKey!.raw,
          apiKeyId: created.apiKey!.record.id,
          apiKeyPrefix: created.apiKey!.record.prefix,
          signingKey: created.rawSigningKey,
          signingKeyPrefix: created.signingKey.keyPrefix,
        },
        `account ${created.account.id} (${created.account.tier}) for ${created.user.email}\napi key (shown once): ${created.apiKey!.raw}\nsigning key (shown once): ${created.rawSigningKey}`,
      );
    });
    return;
  }

  if (group === 'keys' && command === 'create') {
    const accountId = values.account;
    const name = values.name?.trim();
    if (!accountId) throw new UsageError('--account <accountId> is required');
    if (!name) throw new UsageError('--name <name> is required');
    await withDatabase(async (db) => {
      const account = isId(accountId) ? await getAccount(db, accountId) : null;
      if (!account) throw new AppError('NOT_FOUND', `account ${accountId} not found`);
      const { record, raw } = await createApiKey(db, account.id, name);
      print(
        values.json,
        {
          keyId: record.id,
          accountId: account.id,
          name: record.name,
          prefix: record.prefix,
          apiKey: raw,
          createdAt: record.createdAt,
        },
        `api key ${record.id} (${record.prefix}…) for account ${account.id}\napi key (shown once): ${raw}`,
      );
    });
    return;
  }

  if (group === 'master-key' && command === 'rotate') {
    const batchSize = values['batch-size'] === undefined ? 500 : Number(values['batch-size']);
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
      throw new UsageError('--batch-size must be an integer from 1 to 10000');
    }
    const masterKey = resolveMasterKey({
      value: config.KAIROS_MASTER_KEY,
      file: config.KAIROS_MASTER_KEY_FILE,
      nodeEnv: config.NODE_ENV,
      warn: (message) => console.error(`kairos: ${message}`),
    });
    const currentId = currentMasterKeyId(masterKey);
    if (currentId === null) {
      throw new AppError(
        'VALIDATION_ERROR',
        'rotation needs named master keys: KAIROS_MASTER_KEY_FILE (or KAIROS_MASTER_KEY) as id:key lines, the new key first',
      );
    }
    await withDatabase(async (db) => {
      const totals = await rotateMasterKey(db, masterKey, {
        batchSize,
        onBatch: (progress) => {
          if (!values.json)
            console.error(`kairos: ${progress.table}.${progress.column}: ${progress.reencrypted} re-encrypted`);
        },
      });
      const remaining = await countValuesUnderOldKeys(db, masterKey);
      const reencrypted = totals.reduce((sum, total) => sum + total.reencrypted, 0);
      print(
        values.json,
        { currentKeyId: currentId, reencrypted, remaining, tables: totals },
        `${reencrypted} values re-encrypted under master key ${currentId}; ${remaining} still under another key` +
          (remaining === 0
            ? ' (the old keys can be removed once every service runs with this key first)'
            : ' (run again)'),
      );
      if (remaining > 0) process.exitCode = 1;
    });
    return;
  }

  if (group === 'keys' && command === 'revoke') {
    const keyId = rest[0];
    if (!keyId) throw new UsageError('kairos keys revoke <keyId>');
    await withDatabase(async (db) => {
      const key = isId(keyId) ? await revokeApiKeyAsOperator(db, keyId) : null;
      if (!key) throw new AppError('NOT_FOUND', `API key ${keyId} not found`);
      print(values.json, { keyId: key.id, revokedAt: key.revokedAt }, `api key ${key.id} revoked`);
    });
    return;
  }

  if (group === 'users' && command === 'set-role') {
    const email = values.email?.trim();
    const role = values.role as (typeof ROLES)[number] | undefined;
    if (!email) throw new UsageError('--email <email> is required');
    if (!role || !ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
    await withDatabase(async (db) => {
      const user = await setUserRole(db, email, role);
      if (!user) throw new AppError('NOT_FOUND', `no user with email ${email}`);
      await recordAudit(db, {
        accountId: user.accountId,
        actorType: 'operator',
        action: 'user.role_changed',
        targetType: 'user',
        targetId: user.id,
        details: { role, via: 'cli' },
      });
      print(values.json, { userId: user.id, email: user.email, role: user.role }, `${user.email} is now ${user.role}`);
    });
    return;
  }

  if (group === 'accounts' && ['set-tier', 'set-quota', 'disable', 'enable'].includes(command ?? '')) {
    const accountId = rest[0];
    if (!accountId) throw new UsageError(`kairos accounts ${command} <accountId>`);
    const change = accountChange(command!, values as Record<string, string | boolean | undefined>);
    await withDatabase(async (db) => {
      const account = isId(accountId) ? await updateAccount(db, accountId, change, new Date()) : null;
      if (!account) throw new AppError('NOT_FOUND', `account ${accountId} not found`);
      await recordAudit(db, {
        accountId: account.id,
        actorType: 'operator',
        action: 'account.updated',
        targetType: 'account',
        targetId: account.id,
        details: { ...change, via: 'cli' },
      });
      print(
        values.json,
        {
          accountId: account.id,
          tier: account.tier,
          disabledAt: account.disabledAt,
          quotaOverrides: account.quotaOverrides ?? null,
          limits: tierLimits(account.tier, account.quotaOverrides),
        },
        `account ${account.id}: tier ${account.tier}${account.disabledAt ? ', disabled' : ''}, overrides ${JSON.stringify(account.quotaOverrides ?? {})}`,
      );
    });
    return;
  }

  if (group === 'login-link' && !command) {
    // Same defaults as the api (config.ts, server.ts): the link must point at the running api.
    const adminEmail = config.KAIROS_ADMIN_EMAIL;
    const baseUrl = config.KAIROS_PUBLIC_URL ?? `http://localhost:${config.PORT}`;
    await withDatabase(async (db) => {
      const link = await issueSignInLink(db, {
        email: values.email?.trim() || adminEmail,
        adminEmail,
        masterKey: () =>
          resolveMasterKey({
            value: config.KAIROS_MASTER_KEY,
            file: config.KAIROS_MASTER_KEY_FILE,
            nodeEnv: config.NODE_ENV,
            warn: (message) => console.error(`kairos: ${message}`),
          }),
        baseUrl,
        now: new Date(),
      });
      print(
        values.json,
        { url: link.url, expiresAt: link.expiresAt, email: link.user.email, userId: link.user.id },
        `one-time sign-in link for ${link.user.email}, valid for 15 minutes:\n${link.url}`,
      );
    });
    return;
  }

  throw new UsageError(USAGE);
}

/** The change an `accounts set-tier|set-quota|disable|enable` command asks for. */
function accountChange(command: string, values: Record<string, string | boolean | undefined>): AccountChange {
  if (command === 'disable' || command === 'enable') return { disabled: command === 'disable' };
  if (command === 'set-tier') {
    const tier = values.tier as (typeof TIERS)[number] | undefined;
    if (!tier || !TIERS.includes(tier)) throw new UsageError(`--tier must be one of ${TIERS.join(', ')}`);
    return { tier };
  }
  const overrides: Record<string, number | null> = {};
  for (const quota of QUOTA_OPTIONS) {
    const raw = values[quota];
    if (typeof raw !== 'string') continue;
    if (raw === 'default') {
      overrides[quota] = null;
      continue;
    }
    const parsed = quotaOverridesInput.shape[quota].safeParse(/^\d+$/.test(raw) ? Number(raw) : raw);
    if (!parsed.success) throw new UsageError(`--${quota}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    overrides[quota] = parsed.data!;
  }
  if (Object.keys(overrides).length === 0) {
    throw new UsageError(
      `give at least one quota: ${QUOTA_OPTIONS.map((quota) => `--${quota} <n|default>`).join(' ')}`,
    );
  }
  return { quotaOverrides: overrides };
}

async function withDatabase(fn: (db: Database) => Promise<void>): Promise<void> {
  const db = createDatabase({ url: databaseUrl, poolMax: 2 });
  try {
    await ensureMigrated(db);
    await fn(db);
  } finally {
    await db.close();
  }
}

run(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: Error) => {
    // parseArgs refuses unknown options and missing values with ERR_PARSE_ARGS_*: usage errors too.
    if (error instanceof UsageError || String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      console.error(error.message);
      process.exit(64);
    }
    const json = process.argv.includes('--json');
    const body =
      error instanceof AppError ? error.toBody() : { error: { code: 'INTERNAL_ERROR', message: error.message } };
    if (json) process.stdout.write(`${JSON.stringify(body)}\n`);
    console.error(`kairos: ${body.error.message}`);
    process.exit(1);
  },
);
