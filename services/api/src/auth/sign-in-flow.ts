/**
 * The browser side of an external sign-in in progress (OIDC or GitHub): state, nonce, PKCE verifier
 * and where to go afterwards, kept in Redis for 10 minutes under a random id that travels in the
 * `kairos_signin` cookie (httpOnly, SameSite=Lax: the IdP's redirect back is a top-level GET, which
 * Lax cookies accompany). Consumed once (GETDEL), so a callback URL cannot be replayed. Shared by
 * every api replica, so the callback may land on a different replica than the start.
 */
import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { RedisConnection } from '@kairos/queue';
import { cookieOptions } from './sessions.js';

export const SIGN_IN_COOKIE = 'kairos_signin';
const SIGN_IN_TTL_SEC = 600;

export interface SignInFlow {
  provider: 'oidc' | 'github';
  state: string;
  codeVerifier: string;
  nonce?: string;
  /** A local path (open redirects are refused). */
  returnTo: string;
}

/** Only local absolute paths: `/x` but not `//host` or `/\host`. */
export function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])[^\s]*$/.test(value) ? value : '/';
}

export class SignInFlows {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly publicUrl: string | undefined,
  ) {}

  private key(id: string): string {
    return `${this.prefix}:signin:${id}`;
  }

  async begin(req: Request, res: Response, flow: SignInFlow): Promise<void> {
    const id = randomBytes(24).toString('base64url');
    await this.redis.set(this.key(id), JSON.stringify(flow), 'EX', SIGN_IN_TTL_SEC);
    res.cookie(SIGN_IN_COOKIE, id, {
      ...cookieOptions(req, this.publicUrl, true),
      path: '/api/auth',
      maxAge: SIGN_IN_TTL_SEC * 1000,
    });
  }

  /** The flow this browser started for `provider`, consumed; null when unknown, expired or used. */
  async finish(req: Request, res: Response, provider: SignInFlow['provider']): Promise<SignInFlow | null> {
    const id = (req.cookies as Record<string, string> | undefined)?.[SIGN_IN_COOKIE];
    res.clearCookie(SIGN_IN_COOKIE, { ...cookieOptions(req, this.publicUrl, true), path: '/api/auth' });
    if (!id) return null;
    const stored = await this.redis.getdel(this.key(id));
    if (!stored) return null;
    const flow = JSON.parse(stored) as SignInFlow;
    return flow.provider === provider ? flow : null;
  }
}
