/**
 * Device authorisation (RFC 8628, see auth/device-flow.ts) and connected devices (the bearer
 * tokens it issued).
 *
 * POST /api/auth/device/code and /token are OAuth endpoints: they accept JSON or form-encoded
 * bodies, and /token answers errors in the OAuth shape RFC 8628 fixes ({ error, error_description },
 * HTTP 400) instead of the API's { error: { code } } shape: standard device-flow clients parse it.
 */
import { AppError, hashSecret } from '@kairos/core';
import { listAccessTokens, revokeAccessToken, type AccessToken } from '@kairos/db';
import { pollDeviceCode } from '@kairos/db/system';
import type { NextFunction, Request, Response } from 'express';
import { z } from 'zod';
import { audit, recordAuditEvent } from '../audit.js';
import {
  ACCESS_TOKEN_TTL_SEC,
  decideDevice,
  DEVICE_GRANT_TYPE,
  formatUserCode,
  issueDeviceCode,
  VERIFICATION_PATH,
} from '../auth/device-flow.js';
import { publicBaseUrl } from '../auth/pages.js';
import { toAppError } from '../http/errors.js';
import { accessTokenRefused, type RouteRegistry } from '../http/route.js';
import { errorResponses, isoOrNull, isoTime } from './common.js';
import type { ApiDeps } from './deps.js';

const FORM_OR_JSON = ['application/json', 'application/x-www-form-urlencoded'];
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

const deviceCodeInput = z
  .object({
    client_id: z.string().max(200).optional().meta({ description: 'Optional client identifier (RFC 8628)' }),
    client_name: z
      .string()
      .max(200)
      .optional()
      .meta({ description: 'Shown to the person approving and in the list of connected devices' }),
    scope: z.string().optional().meta({ description: 'Ignored: a token has the access of the approving user' }),
  })
  .meta({ id: 'DeviceCodeInput' });

const deviceCodeRecord = z
  .object({
    device_code: z.string().meta({ description: 'Secret of the device; poll /api/auth/device/token with it' }),
    user_code: z.string().meta({ description: 'For the person: XXXX-XXXX', example: 'BDFG-HJKL' }),
    verification_uri: z.string().meta({ description: 'Where the person enters user_code (signed in)' }),
    verification_uri_complete: z.string().meta({ description: 'verification_uri with user_code filled in' }),
    expires_in: z.number().int().meta({ description: 'Seconds the codes stay valid (600)' }),
    interval: z.number().int().meta({ description: 'Seconds to wait between polls (5)' }),
  })
  .meta({ id: 'DeviceCode' });

const deviceTokenInput = z
  .object({
    device_code: z.string().optional().meta({ description: 'Required: the device_code of POST /api/auth/device/code' }),
    grant_type: z
      .string()
      .optional()
      .meta({ description: `Optional; if given, ${DEVICE_GRANT_TYPE}` }),
    client_id: z.string().optional(),
  })
  .meta({ id: 'DeviceTokenInput' });

const deviceTokenRecord = z
  .object({
    access_token: z.string().meta({ description: 'Send as Authorization: Bearer <access_token>' }),
    token_type: z.literal('Bearer'),
    expires_in: z
      .number()
      .int()
      .meta({ description: `Seconds until the token expires (${ACCESS_TOKEN_TTL_SEC})` }),
  })
  .meta({ id: 'DeviceToken' });

const OAUTH_ERRORS = {
  authorization_pending: 'the user has not approved the request yet; poll again after `interval` seconds',
  slow_down: 'polling too fast: the interval grew by 5 seconds; wait longer between polls',
  access_denied: 'the user denied the request',
  expired_token: 'the device code expired; start again with POST /api/auth/device/code',
  invalid_grant: 'unknown or already used device code',
  invalid_request: 'device_code is required',
  unsupported_grant_type: `grant_type must be ${DEVICE_GRANT_TYPE}`,
} as const;
type OAuthErrorCode = keyof typeof OAUTH_ERRORS;

const oauthError = z
  .object({
    error: z.enum(Object.keys(OAUTH_ERRORS) as [OAuthErrorCode, ...OAuthErrorCode[]]),
    error_description: z.string(),
    interval: z.number().int().optional().meta({ description: 'With slow_down: the new polling interval' }),
  })
  .meta({ id: 'OAuthError', description: 'RFC 6749 §5.2 / RFC 8628 §3.5 error body' });

const userCodeInput = z
  .object({
    user_code: z.string().min(1).max(32).meta({ description: 'As shown on the device; case and dashes ignored' }),
  })
  .meta({ id: 'DeviceDecisionInput' });

const deviceDecisionResult = z
  .object({
    success: z.literal(true),
    status: z.enum(['approved', 'denied']),
    clientName: z.string().nullable(),
    userCode: z.string(),
  })
  .meta({ id: 'DeviceDecisionResult' });

const deviceRecord = z
  .object({
    id: z.string(),
    name: z.string().meta({ description: 'client_name given by the device, else "Device"' }),
    prefix: z.string().meta({ description: 'First characters of the token, to recognise it' }),
    createdAt: isoTime,
    lastUsedAt: isoTime.nullable().meta({ description: 'Updated at most once a minute' }),
    expiresAt: isoTime,
    revokedAt: isoTime.nullable(),
  })
  .meta({ id: 'ConnectedDevice' });

function toDeviceRecord(token: AccessToken) {
  return {
    id: token.id,
    name: token.name,
    prefix: token.prefix,
    createdAt: token.createdAt.toISOString(),
    lastUsedAt: isoOrNull(token.lastUsedAt),
    expiresAt: token.expiresAt.toISOString(),
    revokedAt: isoOrNull(token.revokedAt),
  };
}

export const DEVICE_TOKEN_PATH = '/api/auth/device/token';

/**
 * Errors of the token route before its handler runs (malformed or unreadable body, a field of the
 * wrong type, U+0000 in a field) leave as RFC 8628's invalid_request, not the API's error shape:
 * device-flow clients parse only the OAuth one. Rate limiting keeps the API shape (documented 429).
 */
export function oauthErrorHandler(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  const appError = toAppError(error);
  if (!appError || (appError.code !== 'VALIDATION_ERROR' && appError.code !== 'PAYLOAD_TOO_LARGE')) {
    next(error);
    return;
  }
  res.status(400).set(NO_STORE).json({ error: 'invalid_request', error_description: appError.message });
}

function oauthErrorResult(error: OAuthErrorCode, extra: { interval?: number } = {}) {
  return { status: 400, body: { error, error_description: OAUTH_ERRORS[error], ...extra }, headers: NO_STORE };
}

export function registerDeviceRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const tags = ['Device authorisation'];

  routes.add(
    {
      method: 'post',
      path: '/api/auth/device/code',
      operationId: 'requestDeviceCode',
      summary: 'Start the device flow (RFC 8628)',
      description:
        'No credentials. Body optional (JSON or form-encoded). Show user_code and verification_uri to the ' +
        'person, then poll POST /api/auth/device/token every `interval` seconds. 429 RATE_LIMITED (with ' +
        'Retry-After) while KAIROS_DEVICE_CODES_MAX_PENDING requests of all clients are pending.',
      tags,
      public: true,
      bodyContentTypes: FORM_OR_JSON,
      body: deviceCodeInput,
      responses: {
        200: { description: 'Codes for the device and the person', schema: deviceCodeRecord },
        ...errorResponses(400),
      },
    },
    async ({ body, req }) => {
      const clientName = body.client_name?.trim() || body.client_id?.trim() || null;
      const issued = await issueDeviceCode(deps, clientName);
      const verificationUri = `${publicBaseUrl(deps.config, req)}${VERIFICATION_PATH}`;
      const userCode = formatUserCode(issued.userCode);
      return {
        body: {
          device_code: issued.deviceCode,
          user_code: userCode,
          verification_uri: verificationUri,
          verification_uri_complete: `${verificationUri}?user_code=${userCode}`,
          expires_in: issued.expiresInSec,
          interval: issued.intervalSec,
        },
        headers: NO_STORE,
      };
    },
  );

  routes.add(
    {
      method: 'post',
      path: DEVICE_TOKEN_PATH,
      operationId: 'pollDeviceToken',
      summary: 'Poll for the access token (RFC 8628)',
      description:
        'No credentials. JSON or form-encoded. Errors use the OAuth shape { error, error_description } with ' +
        'HTTP 400, as RFC 8628 requires (an exception to the API error shape): authorization_pending (keep ' +
        'polling), slow_down (add 5 s to the interval), access_denied, expired_token, invalid_grant (unknown or ' +
        'used code), invalid_request, unsupported_grant_type. After access_token is issued the code is used up.',
      tags,
      public: true,
      bodyContentTypes: FORM_OR_JSON,
      body: deviceTokenInput,
      responses: {
        200: { description: 'The access token (shown once)', schema: deviceTokenRecord },
        400: { description: 'OAuth error (RFC 8628 §3.5)', schema: oauthError },
        429: errorResponses()[429]!,
      },
    },
    async ({ body }) => {
      if (body.grant_type !== undefined && body.grant_type !== DEVICE_GRANT_TYPE) {
        return oauthErrorResult('unsupported_grant_type');
      }
      if (!body.device_code) return oauthErrorResult('invalid_request');
      const poll = await pollDeviceCode(deps.db, {
        deviceCodeHash: hashSecret(body.device_code),
        now: deps.now(),
        tokenTtlMs: ACCESS_TOKEN_TTL_SEC * 1000,
      });
      switch (poll.kind) {
        case 'issued':
          await recordAuditEvent(deps, {
            accountId: poll.token.accountId,
            actorType: 'user',
            actorId: poll.token.userId,
            action: 'device.token_issued',
            targetType: 'access_token',
            targetId: poll.token.id,
            details: { name: poll.token.name, prefix: poll.token.prefix },
          });
          return {
            body: { access_token: poll.raw, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SEC },
            headers: NO_STORE,
          };
        case 'pending':
          return oauthErrorResult('authorization_pending');
        case 'slow_down':
          return oauthErrorResult('slow_down', { interval: poll.intervalSec });
        case 'denied':
          return oauthErrorResult('access_denied');
        case 'expired':
          return oauthErrorResult('expired_token');
        case 'invalid':
          return oauthErrorResult('invalid_grant');
      }
    },
  );

  for (const decision of ['approve', 'deny'] as const) {
    routes.add(
      {
        method: 'post',
        path: `/api/auth/device/${decision}`,
        operationId: `${decision}Device`,
        summary: decision === 'approve' ? 'Approve a device (user_code)' : 'Deny a device (user_code)',
        description:
          'For the signed-in person (the verification page uses it; cookie sessions send X-CSRF-Token). ' +
          (decision === 'approve'
            ? "The device's next poll receives an access token acting as this user in this account. "
            : 'The device receives access_denied. ') +
          '404 when no pending request has this code (unknown, expired or already decided).',
        tags,
        refusesAccessTokens: true,
        body: userCodeInput,
        responses: {
          200: { description: 'Decision recorded', schema: deviceDecisionResult },
          ...errorResponses(400, 404),
        },
      },
      async ({ auth, body }) => {
        const code = await decideDevice(deps, auth, body.user_code, decision === 'approve' ? 'approved' : 'denied');
        return {
          body: {
            success: true,
            status: decision === 'approve' ? 'approved' : 'denied',
            clientName: code.clientName,
            userCode: formatUserCode(code.userCode),
          },
        };
      },
    );
  }

  const devicesTags = ['Connected devices'];

  routes.add(
    {
      method: 'get',
      path: '/api/devices',
      operationId: 'listDevices',
      summary: 'Connected devices: live access tokens of the account',
      description: 'Tokens issued by the device flow that are neither revoked nor expired, newest first.',
      tags: devicesTags,
      refusesAccessTokens: true,
      responses: { 200: { description: 'Connected devices', schema: z.array(deviceRecord) }, ...errorResponses() },
    },
    async ({ auth }) => ({ body: (await listAccessTokens(deps.db, auth.accountId, deps.now())).map(toDeviceRecord) }),
  );

  routes.add(
    {
      method: 'delete',
      path: '/api/devices/:tokenId',
      role: 'admin',
      operationId: 'revokeDevice',
      summary: 'Disconnect a device (revoke its access token)',
      description:
        'The token stops working at once. Idempotent. A device access token may disconnect only its own device ' +
        '(403 for any other).',
      tags: devicesTags,
      responses: {
        200: {
          description: 'The revoked token',
          schema: z.object({ success: z.literal(true), device: deviceRecord }).meta({ id: 'RevokeDeviceResult' }),
        },
        ...errorResponses(404),
      },
    },
    async ({ auth, params }) => {
      // Disconnecting itself only lessens what a device can do; any other device is credential management.
      if (auth.actor.type === 'access_token' && auth.actor.id !== params.tokenId) throw accessTokenRefused();
      const revoked = await revokeAccessToken(deps.db, auth.accountId, params.tokenId!, deps.now());
      if (!revoked) throw new AppError('NOT_FOUND', 'access token not found', { id: params.tokenId });
      const { token, changed } = revoked;
      deps.accessTokens.evictToken(token.id);
      if (changed) {
        await audit(deps, auth, 'device.revoked', { type: 'access_token', id: token.id }, { name: token.name });
      }
      return { body: { success: true, device: toDeviceRecord(token) } };
    },
  );
}
