/**
 * The client side of the device authorisation grant (RFC 8628) against the Kairos API:
 *
 *   POST /api/auth/device/code  { client_name }  → device_code, user_code, verification_uri(_complete),
 *                                                   expires_in, interval
 *   POST /api/auth/device/token { device_code, grant_type } every `interval` seconds →
 *     authorization_pending: keep polling; slow_down: poll 5 s slower from now on (§3.5);
 *     access_denied / expired_token / anything else: stop; 200: access_token, expires_in.
 *
 * A network error or 429 while polling is not fatal (the API may be restarting): polling goes on
 * until the code expires.
 */
import { z } from 'zod';

export const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628 §3.5: slow_down adds 5 seconds to the polling interval. */
export const SLOW_DOWN_STEP_SEC = 5;
const DEFAULT_INTERVAL_SEC = 5;

const deviceCodeResponse = z.object({
  device_code: z.string().min(1),
  user_code: z.string().min(1),
  verification_uri: z.string().min(1),
  verification_uri_complete: z.string().min(1).optional(),
  expires_in: z.number().positive(),
  interval: z.number().int().positive().optional(),
});

const tokenResponse = z.object({
  access_token: z.string().min(1),
  token_type: z.string().refine((type) => type.toLowerCase() === 'bearer', 'token_type must be Bearer'),
  expires_in: z.number().positive(),
});

const oauthError = z.object({
  error: z.string(),
  error_description: z.string().optional(),
  interval: z.number().int().positive().optional(),
});

export interface DeviceCode {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  /** verification_uri with the code filled in, when the API gives one. */
  verificationUriComplete: string | undefined;
  expiresAt: Date;
  intervalSec: number;
}

export interface IssuedToken {
  accessToken: string;
  expiresAt: Date;
}

/** Why the flow stopped: an OAuth error code (access_denied, expired_token …) or request_failed. */
export class DeviceFlowError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'DeviceFlowError';
  }
}

export interface DeviceFlowOptions {
  apiUrl: string;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => Date;
  /** Stops polling (DeviceFlowError 'aborted'). */
  signal?: AbortSignal;
}

function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

async function post(options: DeviceFlowOptions, path: string, body: unknown) {
  const response = await (options.fetch ?? fetch)(`${options.apiUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json };
}

export async function requestDeviceCode(options: DeviceFlowOptions, clientName: string): Promise<DeviceCode> {
  let answer: Awaited<ReturnType<typeof post>>;
  try {
    answer = await post(options, '/api/auth/device/code', { client_name: clientName });
  } catch (error) {
    const cause = ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message;
    throw new DeviceFlowError('request_failed', `cannot reach ${options.apiUrl}: ${cause}`);
  }
  const parsed = deviceCodeResponse.safeParse(answer.json);
  if (answer.status !== 200 || !parsed.success) {
    const message = (answer.json as { error?: { message?: string } } | undefined)?.error?.message;
    throw new DeviceFlowError(
      'request_failed',
      `the API refused to start a sign-in (HTTP ${answer.status}${message ? `: ${message}` : ''})`,
    );
  }
  const now = (options.now ?? (() => new Date()))();
  return {
    deviceCode: parsed.data.device_code,
    userCode: parsed.data.user_code,
    verificationUri: parsed.data.verification_uri,
    verificationUriComplete: parsed.data.verification_uri_complete,
    expiresAt: new Date(now.getTime() + parsed.data.expires_in * 1000),
    intervalSec: parsed.data.interval ?? DEFAULT_INTERVAL_SEC,
  };
}

/** Polls until the person approves (the token) or the flow ends (DeviceFlowError). */
export async function pollForToken(options: DeviceFlowOptions, code: DeviceCode): Promise<IssuedToken> {
  const sleep = options.sleep ?? ((ms: number) => sleepUnlessAborted(ms, options.signal));
  const now = options.now ?? (() => new Date());
  let intervalSec = code.intervalSec;
  for (;;) {
    await sleep(intervalSec * 1000);
    if (options.signal?.aborted) throw new DeviceFlowError('aborted', 'the sign-in was stopped');
    if (now().getTime() >= code.expiresAt.getTime()) {
      throw new DeviceFlowError('expired_token', 'the sign-in code expired before it was approved');
    }
    let answer: Awaited<ReturnType<typeof post>>;
    try {
      answer = await post(options, '/api/auth/device/token', {
        device_code: code.deviceCode,
        grant_type: DEVICE_GRANT_TYPE,
      });
    } catch {
      continue; // unreachable for now: try again at the next interval
    }
    if (answer.status === 200) {
      const token = tokenResponse.safeParse(answer.json);
      if (!token.success)
        throw new DeviceFlowError('request_failed', 'the API answered the token poll in an unknown shape');
      return {
        accessToken: token.data.access_token,
        expiresAt: new Date(now().getTime() + token.data.expires_in * 1000),
      };
    }
    if (answer.status === 429) {
      const retryAfterSec = Number(answer.headers.get('retry-after'));
      if (Number.isFinite(retryAfterSec) && retryAfterSec > 0) await sleep(retryAfterSec * 1000);
      continue;
    }
    const error = oauthError.safeParse(answer.json);
    const reason = error.success ? error.data.error : `http_${answer.status}`;
    switch (reason) {
      case 'authorization_pending':
        continue;
      case 'slow_down':
        intervalSec = Math.max(intervalSec + SLOW_DOWN_STEP_SEC, error.data?.interval ?? 0);
        continue;
      case 'access_denied':
        throw new DeviceFlowError(reason, 'the sign-in was denied');
      case 'expired_token':
        throw new DeviceFlowError(reason, 'the sign-in code expired before it was approved');
      default:
        throw new DeviceFlowError(
          reason,
          `the sign-in failed: ${error.data?.error_description ?? reason} (HTTP ${answer.status})`,
        );
    }
  }
}
