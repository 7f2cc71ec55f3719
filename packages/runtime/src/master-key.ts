/**
 * The master key that encrypts account signing keys at rest. One resolution for the api service
 * and the operator CLI:
 *  - KAIROS_MASTER_KEY_FILE set: the file's keys (one key, or `id:key` lines, current first: parseMasterKeys);
 *  - KAIROS_MASTER_KEY set: 64 hex characters or base64 of 32 bytes, or `id:key,id:key` (parseMasterKeys);
 *  - unset in production (NODE_ENV=production): refuse to start; a generated key would make every
 *    stored signing key unreadable after the next restart on another machine;
 *  - unset elsewhere: a development key generated once into <repo>/.kairos/master.key (mode 0600,
 *    gitignored) and reused, with a warning.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMasterKey, parseMasterKeys } from '@kairos/core';

/** <repo>/.kairos/master.key (this file is packages/runtime/src/master-key.ts, or dist/ when built). */
export const DEV_MASTER_KEY_FILE = join(dirname(fileURLToPath(import.meta.url)), '../../..', '.kairos/master.key');

export interface MasterKeySource {
  /** KAIROS_MASTER_KEY */
  value: string | undefined;
  /** KAIROS_MASTER_KEY_FILE (wins over value) */
  file?: string | undefined;
  /** NODE_ENV */
  nodeEnv: string | undefined;
  devKeyFile?: string;
  warn: (message: string) => void;
}

export function resolveMasterKey({
  value,
  file,
  nodeEnv,
  devKeyFile = DEV_MASTER_KEY_FILE,
  warn,
}: MasterKeySource): Buffer {
  if (file !== undefined && file.trim() !== '') {
    let text: string;
    try {
      text = readFileSync(file.trim(), 'utf8');
    } catch (error) {
      throw new Error(`KAIROS_MASTER_KEY_FILE ${file}: ${(error as Error).message}`, { cause: error });
    }
    try {
      return parseMasterKeys(text);
    } catch (error) {
      throw new Error(`KAIROS_MASTER_KEY_FILE: ${(error as Error).message}`, { cause: error });
    }
  }
  if (value !== undefined && value.trim() !== '') {
    try {
      return parseMasterKeys(value);
    } catch (error) {
      throw new Error(`KAIROS_MASTER_KEY: ${(error as Error).message}`, { cause: error });
    }
  }
  if (nodeEnv === 'production') {
    throw new Error(
      'KAIROS_MASTER_KEY is required in production (it encrypts the signing keys at rest): ' +
        'set it to 64 hexadecimal characters, e.g. the output of `openssl rand -hex 32`, and keep it with your secrets',
    );
  }
  const key = readOrCreateDevKey(devKeyFile);
  warn(`KAIROS_MASTER_KEY is not set: using the development master key in ${devKeyFile} (never do this in production)`);
  return key;
}

function readOrCreateDevKey(file: string): Buffer {
  try {
    return parseMasterKey(readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`development master key ${file} is unreadable: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    // 'wx': when two processes start at once, the second finds the first one's key instead.
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return parseMasterKey(readFileSync(file, 'utf8'));
}
