/**
 * Re-encrypts every value sealed under the master key (signing keys, their previous key in a grace
 * window, shared secrets) under the current named key, while the services run: in batches by id,
 * each row updated only if it still holds the value read (a concurrent rotation or update already
 * wrote it under the current key), so it is safe to stop and run again: it resumes where values
 * are still under an old key. Operator only (the `kairos master-key rotate` CLI).
 */
import { currentMasterKeyId, decryptSecret, encryptSecret, isUnderCurrentMasterKey } from '@kairos/core';
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
  return totals;
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
