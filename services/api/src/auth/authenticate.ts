/**
 * Authentication middleware. Authenticators are tried in order (x-api-key, bearer token, session
 * cookie); the first that recognises the request's credentials decides. A request with
 * credentials that are wrong is rejected (401) even on public routes, so a client never silently
 * falls back to anonymous. The refusal is held on the request until the rate limiter has counted
 * it against the caller's IP (rejectRefusedCredentials), so guessing keys is throttled too.
 */
import { AppError, effectiveRole, hashSecret, type ApiKeyScope, type MemberRole } from '@kairos/core';
import { type Account, type Database } from '@kairos/db';
import {
  findAccessTokenBySecret,
  findApiKeyBySecret,
  findMemberRole,
  touchAccessToken,
  touchApiKey,
} from '@kairos/db/system';
import type { NextFunction, Request, Response } from 'express';
import { LRUCache } from 'lru-cache';
import type { AuthContext } from './context.js';

export interface Authenticator {
  /** Returns undefined when the request carries none of this authenticator's credentials. */
  authenticate(req: Request): Promise<AuthContext | undefined>;
}

export function authenticationMiddleware(authenticators: Authenticator[]) {
  return async (req: Request, _res: Response, next: NextFunction) => {
    try {
      for (const authenticator of authenticators) {
        const context = await authenticator.authenticate(req);
        if (context) {
          req.auth = context;
          break;
        }
      }
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      req.authError = error;
    }
    next();
  };
}

/** Throws the refusal authenticationMiddleware held back (after rate limiting). */
export function rejectRefusedCredentials(req: Request, _res: Response, next: NextFunction) {
  if (req.authError) throw req.authError;
  next();
}

const LAST_USED_WRITE_INTERVAL_MS = 60_000;
/**
 * Credentials kept per process and authenticator: the least recently used go first beyond it. An
 * entry is ≈ 0.5 KB (a 64-character hash and its context), so ≤ ≈ 5 MB (docs/operations/memory.md).
 */
export const CREDENTIAL_CACHE_MAX = 10_000;

/**
 * The role a credential of a user acts with in an account. A credential whose user is no longer a
 * member is refused; a key that belongs to no user (created by the operator CLI) acts as an owner.
 */
async function credentialRole(db: Database, userId: string | null, accountId: string): Promise<MemberRole> {
  if (!userId) return 'owner';
  const role = await findMemberRole(db, userId, accountId);
  if (!role) throw new AppError('FORBIDDEN', "this credential's user is no longer a member of its account");
  return role;
}

interface SecretLookup {
  context: AuthContext;
  account: Pick<Account, 'disabledAt'>;
  lastUsedAt: Date | null;
  /** When the credential stops working on its own (access tokens). */
  expiresAt?: Date;
}

/**
 * A bearer secret looked up by SHA-256, cached briefly per process (a hot credential costs no
 * query), with lastUsedAt written at most once a minute. Revocation through this process evicts
 * at once; elsewhere a revoked credential stops working within the cache TTL. Both caches are LRUs
 * bounded in size (CREDENTIAL_CACHE_MAX) and time: a secret that is not found is never kept, and
 * however many distinct credentials a process sees, it keeps at most that many.
 */
abstract class CachedSecretAuthenticator implements Authenticator {
  /** By secret hash; expiresAtMs (on `now`) decides, the LRU's own TTL only frees memory. */
  private readonly cache: LRUCache<string, { context: AuthContext; expiresAtMs: number }>;
  /** By credential id: when this process last wrote its lastUsedAt. */
  private readonly lastTouchMs = new LRUCache<string, number>({
    max: CREDENTIAL_CACHE_MAX,
    ttl: LAST_USED_WRITE_INTERVAL_MS,
  });

  constructor(
    protected readonly db: Database,
    private readonly cacheTtlMs: number,
    protected readonly now: () => Date = () => new Date(),
    maxEntries = CREDENTIAL_CACHE_MAX,
  ) {
    this.cache = new LRUCache({ max: maxEntries, ttl: Math.max(cacheTtlMs, 1) });
  }

  /** Credentials cached now (for tests and docs/operations/memory.md). */
  get cachedCount(): number {
    return this.cache.size;
  }

  /** The raw secret; undefined when absent, '' when present but empty. */
  protected abstract readSecret(req: Request): string | undefined;
  protected abstract lookup(raw: string): Promise<SecretLookup | null>;
  protected abstract touch(id: string, at: Date): Promise<void>;
  protected abstract readonly invalidMessage: string;

  async authenticate(req: Request): Promise<AuthContext | undefined> {
    const raw = this.readSecret(req);
    if (raw === undefined) return undefined;
    if (!raw) throw new AppError('UNAUTHORIZED', this.invalidMessage);
    const hash = hashSecret(raw);
    const nowMs = this.now().getTime();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAtMs > nowMs) return cached.context;

    const found = await this.lookup(raw);
    if (!found) {
      this.cache.delete(hash);
      throw new AppError('UNAUTHORIZED', this.invalidMessage);
    }
    if (found.account.disabledAt) throw new AppError('FORBIDDEN', 'this account is disabled');
    const { context } = found;
    if (this.cacheTtlMs > 0) {
      const expiresAtMs = Math.min(nowMs + this.cacheTtlMs, found.expiresAt?.getTime() ?? Infinity);
      this.cache.set(hash, { context, expiresAtMs });
    }
    const lastTouch = this.lastTouchMs.get(context.actor.id) ?? found.lastUsedAt?.getTime() ?? 0;
    if (nowMs - lastTouch >= LAST_USED_WRITE_INTERVAL_MS) {
      this.lastTouchMs.set(context.actor.id, nowMs);
      this.touch(context.actor.id, new Date(nowMs)).catch(() => undefined);
    }
    return context;
  }

  /** Drops every cached entry of one credential (called when it is revoked). */
  protected evictCredential(id: string): void {
    const hashes = [...this.cache.entries()].filter(([, entry]) => entry.context.actor.id === id);
    for (const [hash] of hashes) this.cache.delete(hash);
  }

  /** Drops every cached credential of a user (called when their role or membership changes). */
  evictUser(userId: string): void {
    for (const [hash, entry] of this.cache) if (entry.context.userId === userId) this.cache.delete(hash);
  }

  /** Drops every cached credential of an account (called when an operator disables it). */
  evictAccount(accountId: string): void {
    const hashes = [...this.cache.entries()].filter(([, entry]) => entry.context.accountId === accountId);
    for (const [hash] of hashes) this.cache.delete(hash);
  }
}

/** `x-api-key: <key>`. */
export class ApiKeyAuthenticator extends CachedSecretAuthenticator {
  protected readonly invalidMessage = 'invalid API key';

  protected readSecret(req: Request): string | undefined {
    const header = req.headers['x-api-key'];
    return Array.isArray(header) ? (header[0] ?? '') : header;
  }

  protected async lookup(raw: string): Promise<SecretLookup | null> {
    const key = await findApiKeyBySecret(this.db, raw, this.now());
    if (!key) return null;
    const scope = key.scope === 'read' ? 'read' : 'write';
    const role = effectiveRole(await credentialRole(this.db, key.userId, key.accountId), scope);
    return {
      context: {
        accountId: key.accountId,
        userId: key.userId,
        actor: { type: 'api_key', id: key.id },
        role,
        scope: scope satisfies ApiKeyScope,
      },
      account: key.account,
      lastUsedAt: key.lastUsedAt,
      expiresAt: key.expiresAt ?? undefined,
    };
  }

  protected touch(id: string, at: Date): Promise<void> {
    return touchApiKey(this.db, id, at);
  }

  /** Drops every cached entry of a key (called when it is revoked). */
  evictKey(keyId: string): void {
    this.evictCredential(keyId);
  }
}

/** Any one whitespace character (what String.prototype.trim removes): a single class, no backtracking. */
export const WHITESPACE = /\s/;

/**
 * The token of `Authorization: Bearer <token>` (scheme case-insensitive, at least one space after it,
 * surrounding whitespace ignored); '' when the token is empty; undefined for another scheme or a value
 * of more than one word after the scheme. One pass over the header: a regular expression with
 * `\s+(\S*)\s*$` backtracks quadratically on a header of spaces (15,000 spaces cost ~120 ms of the
 * event loop per request, before any rate limit).
 */
export function parseBearer(header: string | undefined): string | undefined {
  if (header === undefined || header.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  const rest = header.slice(6);
  if (!WHITESPACE.test(rest.charAt(0))) return undefined;
  const token = rest.trim();
  return WHITESPACE.test(token) ? undefined : token;
}

/**
 * `Authorization: Bearer <access token>` (device flow). Other schemes are not ours: ignored.
 * Tokens expire on their own; the cache never outlives a token.
 */
export class AccessTokenAuthenticator extends CachedSecretAuthenticator {
  protected readonly invalidMessage = 'invalid or expired access token';

  protected readSecret(req: Request): string | undefined {
    return parseBearer(req.headers.authorization);
  }

  protected async lookup(raw: string): Promise<SecretLookup | null> {
    const token = await findAccessTokenBySecret(this.db, raw, this.now());
    if (!token) return null;
    const role = await credentialRole(this.db, token.userId, token.accountId);
    return {
      context: {
        accountId: token.accountId,
        userId: token.userId,
        actor: { type: 'access_token', id: token.id },
        role,
        scope: 'write',
      },
      account: token.account,
      lastUsedAt: token.lastUsedAt,
      expiresAt: token.expiresAt,
    };
  }

  protected touch(id: string, at: Date): Promise<void> {
    return touchAccessToken(this.db, id, at);
  }

  /** Drops every cached entry of a token (called when it is revoked). */
  evictToken(tokenId: string): void {
    this.evictCredential(tokenId);
  }
}
