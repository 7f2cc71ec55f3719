#!/usr/bin/env node
/**
 * Prisma CLI wrapper for the offline (WASM schema engine) path; see prisma.config.ts.
 *   generate        generate the client (no database needed)
 *   deploy          apply pending migrations to DATABASE_URL (creating the database if missing)
 *   drift           fail (exit 2) when prisma/schema.prisma and prisma/migrations disagree
 *   new-migration N write prisma/migrations/<timestamp>_<N>/migration.sql from the schema diff
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/kairos';
const env = {
  ...process.env,
  CHECKPOINT_DISABLE: '1',
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  DATABASE_URL: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
};

// Diffs never write to the target database; they only need a server to create shadow databases in.
function withDatabase(url, database) {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function prisma(args, options = {}) {
  const result = spawnSync(join(root, 'node_modules/.bin/prisma'), args, {
    cwd: root,
    env: options.env ?? env,
    stdio: options.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
  });
  return result;
}

export async function ensureDatabase(url) {
  const parsed = new URL(url);
  const name = decodeURIComponent(parsed.pathname.slice(1));
  const admin = new pg.Client({
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username) || 'postgres',
    password: decodeURIComponent(parsed.password) || undefined,
    database: 'postgres',
  });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } finally {
    await admin.end();
  }
}

const diffEnv = { ...env, DATABASE_URL: withDatabase(env.DATABASE_URL, 'postgres') };

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  switch (command) {
    case 'generate':
      process.exit(prisma(['generate', '--no-hints']).status ?? 1);
      break;
    case 'deploy':
      await ensureDatabase(env.DATABASE_URL);
      process.exit(prisma(['migrate', 'deploy']).status ?? 1);
      break;
    case 'drift': {
      const result = prisma(
        [
          'migrate',
          'diff',
          '--from-migrations',
          'prisma/migrations',
          '--to-schema-datamodel',
          'prisma/schema.prisma',
          '--exit-code',
        ],
        { capture: true, env: diffEnv },
      );
      if (result.status === 0) {
        console.log('prisma: schema and migrations agree (no drift)');
        process.exit(0);
      }
      console.error(result.stdout);
      console.error(
        'prisma: DRIFT between prisma/schema.prisma and prisma/migrations; run `pnpm db:new-migration <name>`',
      );
      process.exit(result.status === 2 ? 2 : 1);
      break;
    }
    case 'new-migration': {
      const name = rest[0];
      if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error('usage: new-migration <snake_case_name>');
      const migrationsDir = join(root, 'prisma/migrations');
      mkdirSync(migrationsDir, { recursive: true });
      const hasMigrations = readdirSync(migrationsDir).some((entry) => /^\d{14}_/.test(entry));
      const from = hasMigrations ? ['--from-migrations', 'prisma/migrations'] : ['--from-empty'];
      const result = prisma(['migrate', 'diff', ...from, '--to-schema-datamodel', 'prisma/schema.prisma', '--script'], {
        capture: true,
        env: diffEnv,
      });
      if (result.status !== 0) process.exit(result.status ?? 1);
      if (!/\S/.test(result.stdout.replace(/^--.*$/gm, ''))) {
        console.log('prisma: no changes');
        return;
      }
      const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
      const tmp = mkdtempSync(join(tmpdir(), 'kairos-migration-'));
      writeFileSync(join(tmp, 'migration.sql'), result.stdout);
      const target = join(migrationsDir, `${stamp}_${name}`);
      mkdirSync(target);
      renameSync(join(tmp, 'migration.sql'), join(target, 'migration.sql'));
      rmSync(tmp, { recursive: true, force: true });
      if (!hasMigrations) writeFileSync(join(migrationsDir, 'migration_lock.toml'), 'provider = "postgresql"\n');
      console.log(`prisma: wrote ${target}/migration.sql`);
      console.log(readFileSync(join(target, 'migration.sql'), 'utf8').split('\n').length, 'lines');
      break;
    }
    default:
      console.error('usage: prisma.mjs generate|deploy|drift|new-migration <name>');
      process.exit(64);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    console.error(`prisma: ${error.message}`);
    process.exit(1);
  });
}
