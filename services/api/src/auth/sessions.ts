/**
 * Browser sessions. The `kairos_session` cookie (httpOnly, SameSite=Lax, Secure behind https)
 * holds a random 256-bit secret; web_sessions stores only its SHA-256. Sessions last 7 days from
 * sign-in (no sliding renewal) and end at sign-out.
 *
 * CSRF: every cookie-authenticated write (POST, PUT, PATCH, DELETE) must carry the session's CSRF
 * token in the `X-CSRF-Token` header (or, for the server-rendered forms, a `_csrf` form field).
 * The token is random per session, stored server-side, and readable by the web UI from the
 * `kairos_csrf` cookie (not httpOnly) or GET /api/auth/session. A cross-site page can neither read
 * it nor set the header, and SameSite=Lax already keeps the cookie off cross-site subrequests.
 * Bull Board's own UI (/admin/queues) cannot send the header: writes there need a same-origin
 * Origin header instead. Requests authenticated by x-api-key or bearer token need no CSRF token
 * (a browser never adds those on its own).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError, generateSecret, hashSecret } from '@kairos/core';
import { type Database } from '@kairos/db';
import type { SessionWithUser } from '@kairos/db/system';
import { createWebSession, findLiveWebSession, touchWebSession } from '@kairos/db/system';
import type { CookieOptions, Request, Response } from 'express';
import type { Authenticator } from './authenticate.js';
import type { AuthContext } from './context.js';

export const SESSION_COOKIE = 'kairos_session';
export const CSRF_COOKIE = 'kairos_csrf';
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FORM_FIELD = '_csrf';
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const LAST_SEEN_WRITE_INTERVAL_MS = 5 * 60_000;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Paths whose writes are checked by Origin instead of the CSRF token (third-party UIs). */
const ORIGIN_CHECKED_PREFIXES = ['/admin/queues'];

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function isSameOrigin(req: Request): boolean {
  const origin = req.headers.origin;
  if (!origin) return req.headers['sec-fetch-site'] === 'same-origin';
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

export function hasValidCsrfToken(req: Request, csrfToken: string): boolean {
  const header = req.headers[CSRF_HEADER];
  const formField = (req.body as Record<string, unknown> | undefined)?.[CSRF_FORM_FIELD];
  const given = typeof header === 'string' ? header : typeof formField === 'string' ? formField : '';
  if (given && sameSecret(given, csrfToken)) return true;
  return ORIGIN_CHECKED_PREFIXES.some((prefix) => req.path.startsWith(prefix)) && isSameOrigin(req);
}

/**
 * The account a session acts for: the one it switched to (POST /api/account/switch) while the user is
 * still its member, else the account the user signed up with, else the user's oldest membership.
 */
export function currentMembership(
  session: SessionWithUser,
): SessionWithUser['user']['memberships'][number] | undefined {
  const { memberships } = session.user;
  const of = (accountId: string | null) => memberships.find((membership) => membership.accountId === accountId);
  return (
    of(session.accountId) ??
    of(session.user.accountId) ??
    [...memberships].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())[0]
  );
}

/**
 * The session cookie. An unknown, expired or revoked cookie is ignored (the browser sends stale
 * cookies on its own; public pages must keep working), so protected routes answer 401.
 */
export class SessionAuthenticator implements Authenticator {
  constructor(
    private readonly db: Database,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async authenticate(req: Request): Promise<AuthContext | undefined> {
    const raw = (req.cookies as Record<string, string> | undefined)?.[SESSION_COOKIE];
    if (!raw) return undefined;
    const now = this.now();
    const session = await findLiveWebSession(this.db, hashSecret(raw), now);
    if (!session) return undefined;
    const membership = currentMembership(session);
    if (!membership) throw new AppError('FORBIDDEN', 'you are no longer a member of any account');
    if (membership.account.disabledAt) throw new AppError('FORBIDDEN', 'this account is disabled');
    if (!SAFE_METHODS.has(req.method) && !hasValidCsrfToken(req, session.csrfToken)) {
      throw new AppError('FORBIDDEN', 'missing or invalid CSRF token (send the X-CSRF-Token header)', {
        header: 'X-CSRF-Token',
      });
    }
    if (!session.lastSeenAt || now.getTime() - session.lastSeenAt.getTime() >= LAST_SEEN_WRITE_INTERVAL_MS) {
      touchWebSession(this.db, session.id, now).catch(() => undefined);
    }
    return {
      accountId: membership.accountId,
      userId: session.userId,
      actor: { type: 'user', id: session.userId },
      role: membership.role,
      scope: 'write',
      sessionId: session.id,
    };
  }
}

export function cookieOptions(req: Request, publicUrl: string | undefined, httpOnly: boolean): CookieOptions {
  const secure = publicUrl ? publicUrl.startsWith('https:') : req.secure;
  return { httpOnly, sameSite: 'lax', secure, path: '/' };
}

/** Creates a session for the user and sets its cookies. Returns the CSRF token. */
export async function startSession(
  db: Database,
  req: Request,
  res: Response,
  input: { userId: string; now: Date; publicUrl: string | undefined },
): Promise<string> {
  const secret = generateSecret('kls');
  const csrfToken = randomBytes(32).toString('base64url');
  const expiresAt = new Date(input.now.getTime() + SESSION_TTL_MS);
  await createWebSession(db, {
    userId: input.userId,
    tokenHash: secret.hash,
    csrfToken,
    expiresAt,
    now: input.now,
  });
  res.cookie(SESSION_COOKIE, secret.raw, { ...cookieOptions(req, input.publicUrl, true), expires: expiresAt });
  res.cookie(CSRF_COOKIE, csrfToken, { ...cookieOptions(req, input.publicUrl, false), expires: expiresAt });
  return csrfToken;
}

export function clearSessionCookies(req: Request, res: Response, publicUrl: string | undefined): void {
  res.clearCookie(SESSION_COOKIE, cookieOptions(req, publicUrl, true));
  res.clearCookie(CSRF_COOKIE, cookieOptions(req, publicUrl, false));
}
