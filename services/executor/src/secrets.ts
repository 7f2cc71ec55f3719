/**
 * Shared secrets at call time: the values an endpoint references (`{{secrets.NAME}}`), decrypted
 * and kept per account for SECRETS_TTL_MS. Before using what it keeps, a call reads the account's
 * secrets version (one Redis GET, packages/queue/src/secrets-version.ts): the API bumps it on every
 * change, so an updated secret is sent from the very next run. Endpoints without a reference never
 * get here (callEndpoint looks for `{{` first): they cost nothing.
 */
import { decryptSecret } from '@kairos/core';
import { loadEncryptedSecrets, type Database } from '@kairos/db';
import { readSecretsVersion, type RedisConnection } from '@kairos/queue';

/** How long decrypted values are used without reading the database again (version unchanged). */
export const SECRETS_TTL_MS = 30_000;
/** Accounts kept at most (oldest dropped first). */
const CAPACITY = 10_000;

interface Entry {
  version: string | null;
  loadedAtMs: number;
  values: Map<string, string>;
}

export type ResolvedSecrets = { ok: true; values: Map<string, string> } | { ok: false; missing: string[] };

export class SecretResolver {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly options: {
      db: Database;
      redis: RedisConnection;
      prefix: string;
      masterKey: Buffer;
      ttlMs?: number;
      nowMs?: () => number;
    },
  ) {}

  /** The values of `names` in the account, or the names it has no secret of. */
  async resolve(accountId: string, names: string[]): Promise<ResolvedSecrets> {
    const nowMs = (this.options.nowMs ?? Date.now)();
    const version = await readSecretsVersion(this.options.redis, this.options.prefix, accountId);
    let entry = this.entries.get(accountId);
    const fresh =
      entry &&
      entry.version === version &&
      nowMs - entry.loadedAtMs < (this.options.ttlMs ?? SECRETS_TTL_MS) &&
      names.every((name) => entry!.values.has(name));
    if (!fresh) {
      // Every secret of the account at once: its other endpoints find theirs in the same entry.
      const rows = await loadEncryptedSecrets(this.options.db, accountId);
      entry = {
        version,
        loadedAtMs: nowMs,
        values: new Map(rows.map((row) => [row.name, decryptSecret(row.encryptedValue, this.options.masterKey)])),
      };
      this.entries.delete(accountId);
      this.entries.set(accountId, entry);
      if (this.entries.size > CAPACITY) this.entries.delete(this.entries.keys().next().value!);
    }
    const missing = names.filter((name) => !entry!.values.has(name));
    if (missing.length > 0) return { ok: false, missing };
    return { ok: true, values: new Map(names.map((name) => [name, entry!.values.get(name)!])) };
  }
}
