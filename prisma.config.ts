/**
 * Prisma CLI configuration (CLI only; the services use @kairos/db).
 *
 * The native schema engine cannot be downloaded on our build machines, so the CLI runs
 * Prisma 6.19.3's bundled WASM schema engine through @prisma/adapter-pg (`engine: 'js'`).
 * That path has five known defects, each worked around here (see docs/stack.md; Prisma 7 has no such path):
 *  1. the engine reads pg_catalog columns of type `name` (oid 19) and `"char"` (oid 18), which
 *     adapter-pg cannot deserialize: we present them as text (oid 25);
 *  2. pg lets `connectionString` override `database`, so the shadow database would silently be
 *     the real one: we pass host/port/user/password/database as separate fields;
 *  3. adapter-pg drops the shadow database before closing its pool, so shadow databases leak:
 *     we create and drop it ourselves (DROP ... WITH (FORCE));
 *  4. `migrate deploy` lingers ~11 s after finishing: idle pool connections (pg's 10 s idle timeout)
 *     and engine timers keep the process alive. Pools exit on idle and long timers are unref'd.
 *  5. adapter-pg's executeScript splits a migration on every `;` and runs the pieces one by one in
 *     autocommit: a dollar-quoted body (`DO $$ … $$`, the runs partitioning migration) breaks into
 *     syntax errors, and a migration failing halfway leaves the statements before it applied. We send
 *     the whole script as one simple-protocol query, which PostgreSQL runs as one implicit
 *     transaction: a migration applies whole or not at all.
 */
import { randomUUID } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { defineConfig } from 'prisma/config';

const PG_TEXT_OID = 25;
const PG_CHAR_OID = 18;
const PG_NAME_OID = 19;

// (1) present `name` and `"char"` columns as text.
const resultProto = pg.Result.prototype as unknown as {
  addFields: (fields: { dataTypeID: number }[]) => void;
};
const originalAddFields = resultProto.addFields;
resultProto.addFields = function addFields(this: unknown, fields) {
  for (const field of fields) {
    if (field.dataTypeID === PG_CHAR_OID || field.dataTypeID === PG_NAME_OID) field.dataTypeID = PG_TEXT_OID;
  }
  originalAddFields.call(this, fields);
};

// (4) never let a long engine timer keep the CLI alive.
const originalSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((handler: (...args: unknown[]) => void, timeoutMs?: number, ...args: unknown[]) => {
  const timer = originalSetTimeout(handler, timeoutMs, ...args);
  if ((timeoutMs ?? 0) >= 5000) timer.unref();
  return timer;
}) as typeof setTimeout;

// Only `prisma generate` may run without a database; it never connects.
const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/kairos';

// (2) separate connection fields, never a connectionString.
function connectionFields(url: string, database?: string): pg.PoolConfig {
  const parsed = new URL(url);
  return {
    host: decodeURIComponent(parsed.hostname) || '127.0.0.1',
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username) || 'postgres',
    password: decodeURIComponent(parsed.password) || undefined,
    database: database ?? decodeURIComponent(parsed.pathname.slice(1)),
    max: 2,
    // (4) idle pool clients would otherwise hold the CLI open for pg's 10 s idle timeout.
    allowExitOnIdle: true,
  };
}

type Adapter = Awaited<ReturnType<PrismaPg['connect']>>;

// (5) one query per migration script: dollar quotes intact, all or nothing.
function wholeScripts<T extends Adapter>(adapter: T): T {
  const pool = adapter.underlyingDriver() as pg.Pool;
  const onError = (adapter as unknown as { onError: (error: unknown) => never }).onError.bind(adapter);
  adapter.executeScript = async (script: string) => {
    try {
      await pool.query(script);
    } catch (error) {
      onError(error);
    }
  };
  return adapter;
}

class ShadowAwarePrismaPg extends PrismaPg {
  override async connect() {
    return wholeScripts(await super.connect());
  }

  // (3) create and force-drop the shadow database ourselves.
  override async connectToShadowDb() {
    const name = `kairos_shadow_${randomUUID().replaceAll('-', '')}`;
    const admin = new pg.Client(connectionFields(databaseUrl, 'postgres'));
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const shadow = wholeScripts(await new PrismaPg(connectionFields(databaseUrl, name)).connect());
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      const dropper = new pg.Client(connectionFields(databaseUrl, 'postgres'));
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await dropper.end();
    };
    return shadow;
  }
}

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  experimental: { adapter: true },
  engine: 'js',
  adapter: async () => new ShadowAwarePrismaPg(connectionFields(databaseUrl)),
});
