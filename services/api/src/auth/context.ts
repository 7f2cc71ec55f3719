/** Who is calling. Every authenticator (API key now; bearer token and browser session later) yields one. */
export interface AuthContext {
  accountId: string;
  userId: string | null;
  actor: { type: 'api_key' | 'access_token' | 'user' | 'operator'; id: string };
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      auth?: AuthContext;
      requestId?: string;
    }
  }
}
