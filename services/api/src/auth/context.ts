import type { ApiKeyScope, AppError, MemberRole } from '@kairos/core';

/**
 * Who is calling. Every authenticator (API key, bearer access token, browser session) yields one.
 * actor is what the audit log records: the key, the token, or the signed-in user.
 */
export interface AuthContext {
  accountId: string;
  userId: string | null;
  actor: { type: 'api_key' | 'access_token' | 'user' | 'operator'; id: string };
  /**
   * The role the caller acts with in accountId: its user's membership role, capped at viewer for a
   * read-scoped key (packages/core/src/roles.ts). The route registry checks it against each route's
   * least role (http/route.ts).
   */
  role: MemberRole;
  /** An API key's scope; write for every other credential. */
  scope: ApiKeyScope;
  /** Set when the request is authenticated by the browser session cookie. */
  sessionId?: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      auth?: AuthContext;
      /** Credentials were presented and refused; thrown after the rate limiter counted the request. */
      authError?: AppError;
      requestId?: string;
    }
  }
}
