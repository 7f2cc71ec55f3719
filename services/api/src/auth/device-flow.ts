/**
 * Device authorisation grant (RFC 8628), as the MCP server and CLIs use it:
 *
 *   POST /api/auth/device/code   → device_code (secret, for the device), user_code (for the person),
 *                                   verification_uri(_complete), expires_in 600, interval 5
 *   the person opens verification_uri signed in, enters user_code, approves or denies
 *   POST /api/auth/device/token  → authorization_pending | slow_down | access_denied |
 *                                   expired_token | invalid_grant, then once: access_token
 *
 * user_code: 8 letters from 20 consonants (RFC 8628 §6.1: no vowels, so no words; no look-alikes),
 * ~34.6 bits, shown as XXXX-XXXX; input is case-insensitive and ignores dashes and spaces.
 * Guessing one of the few live codes in its 10 minutes needs billions of approvals, which the
 * approver's rate limit makes impossible. Access tokens live 90 days and are revocable.
 */
import { randomInt } from 'node:crypto';
import { AppError, hashSecret } from '@kairos/core';
import { type DeviceCode } from '@kairos/db';
import {
  countPendingDeviceCodes,
  createDeviceCode,
  decideDeviceCode,
  deleteExpiredDeviceCodes,
} from '@kairos/db/system';
import { randomBytes } from 'node:crypto';
import { audit } from '../audit.js';
import type { ApiDeps } from '../routes/deps.js';
import type { AuthContext } from './context.js';

export const DEVICE_CODE_TTL_SEC = 600;
export const DEVICE_POLL_INTERVAL_SEC = 5;
export const ACCESS_TOKEN_TTL_SEC = 90 * 24 * 60 * 60;
export const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
export const VERIFICATION_PATH = '/device';

const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;

export function generateUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i += 1) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** What a person typed → the stored form (8 letters), or null when it cannot be a user code. */
export function normalizeUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, '');
  return code.length === USER_CODE_LENGTH && [...code].every((c) => USER_CODE_ALPHABET.includes(c)) ? code : null;
}

export const formatUserCode = (code: string): string => `${code.slice(0, 4)}-${code.slice(4)}`;

export interface IssuedDeviceCode {
  deviceCode: string;
  userCode: string;
  expiresInSec: number;
  intervalSec: number;
}

export async function issueDeviceCode(deps: ApiDeps, clientName: string | null): Promise<IssuedDeviceCode> {
  const now = deps.now();
  // Codes expired for a day are dropped (their user codes become free again); cheap, indexed.
  await deleteExpiredDeviceCodes(deps.db, now, 24 * 60 * 60_000);
  // A global bound: the per-address rate limit alone lets many addresses fill the table. Checked
  // before the insert, so concurrent requests may pass it by a few.
  const maxPending = deps.config.KAIROS_DEVICE_CODES_MAX_PENDING;
  const pending = await countPendingDeviceCodes(deps.db, now);
  if (pending.count >= maxPending) {
    const retryAfterSec = Math.max(
      1,
      Math.ceil(((pending.firstExpiresAt?.getTime() ?? now.getTime()) - now.getTime()) / 1000),
    );
    throw new AppError('RATE_LIMITED', `too many pending device requests: retry in ${retryAfterSec} s`, {
      maxPendingDeviceCodes: maxPending,
      retryAfterSeconds: retryAfterSec,
    });
  }
  const deviceCode = randomBytes(32).toString('base64url');
  for (let attempt = 0; ; attempt += 1) {
    const userCode = generateUserCode();
    try {
      await createDeviceCode(deps.db, {
        deviceCodeHash: hashSecret(deviceCode),
        userCode,
        clientName,
        intervalSec: DEVICE_POLL_INTERVAL_SEC,
        expiresAt: new Date(now.getTime() + DEVICE_CODE_TTL_SEC * 1000),
      });
      return { deviceCode, userCode, expiresInSec: DEVICE_CODE_TTL_SEC, intervalSec: DEVICE_POLL_INTERVAL_SEC };
    } catch (error) {
      // A user code collision (1 in 2.56e10 per live code) is retried with a new code.
      if (attempt >= 3 || (error as { code?: string }).code !== 'P2002') throw error;
    }
  }
}

/** The signed-in person's decision on a pending request. NOT_FOUND for unknown, decided or expired codes. */
export async function decideDevice(
  deps: ApiDeps,
  auth: AuthContext,
  rawUserCode: string,
  decision: 'approved' | 'denied',
): Promise<DeviceCode> {
  if (!auth.userId) {
    throw new AppError('FORBIDDEN', 'approving a device needs a user (this API key belongs to no user)');
  }
  const userCode = normalizeUserCode(rawUserCode);
  const code = userCode
    ? await decideDeviceCode(deps.db, { userCode, userId: auth.userId, decision, now: deps.now() })
    : null;
  if (!code) {
    throw new AppError('NOT_FOUND', 'no pending device request with this code (it may have expired or been used)', {
      field: 'user_code',
    });
  }
  await audit(
    deps,
    auth,
    decision === 'approved' ? 'device.approved' : 'device.denied',
    {
      type: 'device_code',
      id: code.id,
    },
    { clientName: code.clientName, userCode: formatUserCode(code.userCode) },
  );
  return code;
}
