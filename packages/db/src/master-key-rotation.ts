/**
 * Re-encrypts every value sealed under the master key (signing keys, their previous key in a grace
 * window, shared secrets) under the current named key, while the services run: in batches by id,
 * each row updated only if it still holds the value read (a concurrent rotation or update already
 * wrote it under the current key), so it is safe to stop and run again: it resumes where values
 * are still under an old key. Operator only (the `kairos master-key rotate` CLI).
 * Endpoints' sealed header values are re-encrypted the same way, and sensitive header values stored
 * plain before they were sealed at rest are sealed (endpoints.headers: sealPlainHeaders).
 */
import { currentMasterKeyId, decryptSecret, encryptSecret, isUnderCurrentMasterKey, sealHeaders } from '@kairos/core';
import type { Database } from './client.js';

export interface RotationProgress {
  table: string;
  column: string;
  reencrypted: number;
}

const COLUMNS = [
  { table: 'signing_keys', column: 'encryptedKey' },
  { table: 'signing_keys', column: 'previousEncryptedKey' },
  { table: 'secrets', column: 'encryptedValue' },
  { table: 'endpoints', column: 'sealedHeaders' },
] as const;

export async function rotateMasterKey(
  db: Database,
  masterKey: Buffer,
  options: { batchSize?: number; onBatch?: (progress: RotationProgress) => void } = {},
): Promise<RotationProgress[]> {
  const currentId = currentMasterKeyId(masterKey);
  if (currentId === null) throw new Error('rotation needs named master keys (id:key, current first)');
  const batchSize = options.batchSize ?? 500;
  const current = `v2.${currentId}.%`;
  const totals: RotationProgress[] = [];
  for (const { table, column } of COLUMNS) {
    const total = { table, column, reencrypted: 0 };
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const { rows } = await db.pool.query<{ id: string; value: string }>(
        `SELECT id, "${column}" AS value FROM ${table}
         WHERE id > $1 AND "${column}" IS NOT NULL AND "${column}" NOT LIKE $2
         ORDER BY id LIMIT $3`,
        [after, current, batchSize],
      );
      if (rows.length === 0) break;
      let reencrypted = 0;
      for (const row of rows) {
        if (isUnderCurrentMasterKey(row.value, masterKey)) continue;
        const sealed = encryptSecret(decryptSecret(row.value, masterKey), masterKey);
        const result = await db.pool.query(`UPDATE ${table} SET "${column}" = $1 WHERE id = $2 AND "${column}" = $3`, [
          sealed,
          row.id,
          row.value,
        ]);
        reencrypted += result.rowCount ?? 0;
      }
      after = rows.at(-1)!.id;
      total.reencrypted += reencrypted;
      options.onBatch?.({ table, column, reencrypted });
    }
    totals.push(total);
  }
  totals.push(await sealPlainHeaders(db, masterKey, batchSize, options.onBatch));
  return totals;
}

/**
 * Seals the sensitive header values of endpoints stored before they were sealed at rest (their
 * headers hold them plain, sealedHeaders is null), in batches by id; a row changed meanwhile (an
 * update seals its own) is left as that update wrote it.
 */
async function sealPlainHeaders(
  db: Database,
  masterKey: Buffer,
  batchSize: number,
  onBatch: ((progress: RotationProgress) => void) | undefined,
): Promise<RotationProgress> {
  const total = { table: 'endpoints', column: 'headers', reencrypted: 0 };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const { rows } = await db.pool.query<{ id: string; headers: Record<string, string> }>(
      `SELECT id, headers FROM endpoints
        WHERE id > $1 AND headers IS NOT NULL AND jsonb_typeof(headers) = 'object' AND "sealedHeaders" IS NULL
        ORDER BY id LIMIT $2`,
      [after, batchSize],
    );
    if (rows.length === 0) break;
    let sealed = 0;
    for (const row of rows) {
      const { headers, sealedHeaders } = sealHeaders(row.headers, masterKey);
      if (sealedHeaders === null) continue;
      const result = await db.pool.query(
        `UPDATE endpoints SET headers = $1::jsonb, "sealedHeaders" = $2
          WHERE id = $3 AND "sealedHeaders" IS NULL AND headers = $4::jsonb`,
        [JSON.stringify(headers), sealedHeaders, row.id, JSON.stringify(row.headers)],
      );
      sealed += result.rowCount ?? 0;
    }
    after = rows.at(-1)!.id;
    total.reencrypted += sealed;
    onBatch?.({ table: 'endpoints', column: 'headers', reencrypted: sealed });
  }
  return total;
}

/** How many values are still sealed under another key than the current one. */
export async function countValuesUnderOldKeys(db: Database, masterKey: Buffer): Promise<number> {
  const currentId = currentMasterKeyId(masterKey);
  const pattern = currentId === null ? '' : `v2.${currentId}.%`;
  let count = 0;
  for (const { table, column } of COLUMNS) {
    const { rows } = await db.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${table} WHERE "${column}" IS NOT NULL AND "${column}" NOT LIKE $1`,
      [pattern],
    );
    count += Number(rows[0]!.n);
  }
  return count;
}
