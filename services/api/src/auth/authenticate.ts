/**
 * Authentication middleware. Authenticators are tried in order; the first that recognises the
 * request's credentials decides. A request with credentials that are wrong is rejected (401) even
 * on public routes, so a client never silently falls back to anonymous.
 */
import { AppError, hashSecret } from '@kairos/core';
import { findApiKeyBySecret, touchApiKey, type Database } from '@kairos/db';
import type { NextFunction, Request, Response } from 'express';
import type { AuthContext } from './context.js';

export interface Authenticator {
  /** Returns undefined when the request carries none of this authenticator's credentials. */
  authenticate(req: Request): Promise<AuthContext | undefined>;
}

export function authenticationMiddleware(authenticators: Authenticator[]) {
  return async (req: Request, _res: Response, next: NextFunction) => {
    for (const authenticator of authenticators) {
      const context = await authenticator.authenticate(req);
      if (context) {
        req.auth = context;
        break;
      }
    }
    next();
  };
}

const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * `x-api-key`: looked up by SHA-256, cached briefly per process (a hot key costs no query), with
 * lastUsedAt written at most once a minute. Revocation through this process evicts at once;
 * elsewhere a revoked key stops working within the cache TTL.
 */
export class ApiKeyAuthenticator implements Authenticator {
  private readonly cache = new Map<string, { context: AuthContext; expiresAtMs: number }>();
  private readonly lastTouchMs = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly cacheTtlMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async authenticate(req: Request): Promise<AuthContext | undefined> {
    const header = req.headers['x-api-key'];
    if (header === undefined) return undefined;
    const raw = Array.isArray(header) ? header[0] : header;
    if (!raw) throw new AppError('UNAUTHORIZED', 'invalid API key');
    const hash = hashSecret(raw);
    const nowMs = this.now().getTime();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAtMs > nowMs) return cached.context;

    const key = await findApiKeyBySecret(this.db, raw);
    if (!key) {
      this.cache.delete(hash);
      throw new AppError('UNAUTHORIZED', 'invalid API key');
    }
    if (key.account.disabledAt) throw new AppError('FORBIDDEN', 'this account is disabled');
    const context: AuthContext = {
      accountId: key.accountId,
      userId: key.userId,
      actor: { type: 'api_key', id: key.id },
    };
    if (this.cacheTtlMs > 0) this.cache.set(hash, { context, expiresAtMs: nowMs + this.cacheTtlMs });
    const lastTouch = this.lastTouchMs.get(key.id) ?? key.lastUsedAt?.getTime() ?? 0;
    if (nowMs - lastTouch >= LAST_USED_WRITE_INTERVAL_MS) {
      this.lastTouchMs.set(key.id, nowMs);
      touchApiKey(this.db, key.id, new Date(nowMs)).catch(() => undefined);
    }
    return context;
  }

  /** Drops every cached entry of a key (called when it is revoked). */
  evictKey(keyId: string): void {
    for (const [hash, entry] of this.cache) if (entry.context.actor.id === keyId) this.cache.delete(hash);
  }
}
