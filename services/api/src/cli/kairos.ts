/**
 * Operator CLI. Output contract (scripts rely on it): with --json, exactly one JSON object on
 * stdout; diagnostics go to stderr; exit 0 on success, 1 on a refused operation, 64 on usage errors.
 *
 *   kairos accounts create --email <email> [--name <name>] [--tier free|pro|enterprise] [--operator] --json
 *   kairos keys create --account <accountId> --name <name> --json
 *   kairos keys revoke <keyId> [--json]
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AppError, isId } from '@kairos/core';
import {
  createAccount,
  createApiKey,
  createDatabase,
  getAccount,
  revokeApiKey,
  type Database,
  type Tier,
} from '@kairos/db';
import { resolveMasterKey } from '@kairos/runtime';

const TIERS = ['free', 'pro', 'enterprise'] as const;
const USAGE = `usage:
  kairos accounts create --email <email> [--name <name>] [--tier free|pro|enterprise] [--operator] [--json]
  kairos keys create --account <accountId> --name <name> [--json]
  kairos keys revoke <keyId> [--json]`;

class UsageError extends Error {}

const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/kairos';

/** A fresh machine has no schema yet: apply migrations (quietly) before the first command. */
async function ensureMigrated(db: Database): Promise<void> {
  const ok = await db.pool
    .query(`SELECT to_regclass('public.accounts') AS present`)
    .then((result) => result.rows[0]?.present !== null)
    .catch(() => false);
  if (ok) return;
  const result = spawnSync('node', [join(root, 'scripts/prisma.mjs'), 'deploy'], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
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
      value: process.env.KAIROS_MASTER_KEY,
      nodeEnv: process.env.NODE_ENV,
      warn: (message) => console.error(`kairos: ${message}`),
    });
    await withDatabase(async (db) => {
      const created = await createAccount(
        db,
        {
          email,
          tier,
          operator: values.operator,
          apiKeyName: 'default',
          ...(values.name ? { name: values.name } : {}),
        },
        { masterKey },
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
          signingKeyPrefix: created.signingKey.keyPrefix,
        },
        `account ${created.account.id} (${created.account.tier}) for ${created.user.email}\napi key (shown once): ${created.apiKey!.raw}`,
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

  if (group === 'keys' && command === 'revoke') {
    const keyId = rest[0];
    if (!keyId) throw new UsageError('kairos keys revoke <keyId>');
    await withDatabase(async (db) => {
      const key = isId(keyId) ? await revokeApiKey(db, null, keyId) : null;
      if (!key) throw new AppError('NOT_FOUND', `API key ${keyId} not found`);
      print(values.json, { keyId: key.id, revokedAt: key.revokedAt }, `api key ${key.id} revoked`);
    });
    return;
  }

  throw new UsageError(USAGE);
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
    if (error instanceof UsageError) {
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
