/**
 * Credentials of the stdio server when no API key is configured: a bearer token from the device
 * flow, cached in the token file.
 *
 * States: a live token (used as is) · no token: a sign-in is running (started at launch, or after
 * a 401 showed the token expired or was revoked) and tool calls wait for it, at most
 * loginWaitMs, then fail with the code to enter · a failed sign-in (denied, expired): reported,
 * and the next tool call starts a new one. Only one sign-in runs at a time.
 *
 * The person sees the verification link and user code on stderr (never stdout: it carries the
 * protocol) and in the error of a tool call made while the sign-in waits.
 */
import { KairosApiError, type CredentialHeaders, type CredentialProvider } from '@kairos/client';
import {
  isTokenLive,
  pollForToken,
  requestDeviceCode,
  type DeviceCode,
  type DeviceFlowOptions,
  type StoredToken,
  type TokenStore,
} from '@kairos/client/node';

export interface DeviceLoginOptions extends DeviceFlowOptions {
  store: TokenStore;
  /** Shown to the person approving and in their list of connected devices. */
  clientName: string;
  /** How long a tool call waits for a running sign-in before failing with instructions. */
  loginWaitMs: number;
  log(message: string): void;
}

export const DEFAULT_LOGIN_WAIT_MS = 45_000;

export class DeviceLogin implements CredentialProvider {
  private token: StoredToken | null = null;
  private login: Promise<StoredToken> | null = null;
  private pending: DeviceCode | null = null;
  private readonly stopped = new AbortController();

  constructor(private readonly options: DeviceLoginOptions) {}

  /** Stops a running sign-in (shutdown). */
  stop(): void {
    this.stopped.abort();
  }

  private now(): Date {
    return (this.options.now ?? (() => new Date()))();
  }

  /** Loads the cached token; without one, starts signing in at once. */
  async start(): Promise<void> {
    this.token = await this.options.store.read(this.options.apiUrl, this.now());
    if (this.token) {
      this.options.log(`using the cached access token in ${this.options.store.path}`);
    } else {
      void this.signIn();
    }
  }

  async headers(): Promise<CredentialHeaders> {
    const token = this.token && isTokenLive(this.token, this.now()) ? this.token : await this.waitForSignIn();
    return { authorization: `Bearer ${token.accessToken}` };
  }

  /** A 401: the token we sent expired or was revoked. Forget it and sign in again. */
  async refresh(refused: CredentialHeaders): Promise<boolean> {
    if (this.token && refused.authorization === `Bearer ${this.token.accessToken}`) {
      this.options.log('the access token was refused (expired or revoked); signing in again');
      this.token = null;
      await this.options.store.clear();
    }
    await this.waitForSignIn();
    return true;
  }

  private signIn(): Promise<StoredToken> {
    if (!this.login) {
      this.login = this.runDeviceFlow().finally(() => {
        this.login = null;
        this.pending = null;
      });
      this.login.catch(() => undefined); // reported in runDeviceFlow; callers get the rejection
    }
    return this.login;
  }

  private async runDeviceFlow(): Promise<StoredToken> {
    try {
      const flow = { ...this.options, signal: this.stopped.signal };
      const code = await requestDeviceCode(flow, this.options.clientName);
      this.pending = code;
      const minutes = Math.round((code.expiresAt.getTime() - this.now().getTime()) / 60_000);
      this.options.log(
        `sign in to Kairos: open ${code.verificationUriComplete ?? code.verificationUri}\n` +
          `  (or open ${code.verificationUri} and enter the code ${code.userCode}); the code expires in ${minutes} minutes`,
      );
      const issued = await pollForToken(flow, code);
      const token: StoredToken = {
        apiUrl: this.options.apiUrl,
        accessToken: issued.accessToken,
        tokenType: 'Bearer',
        expiresAt: issued.expiresAt.toISOString(),
        obtainedAt: this.now().toISOString(),
      };
      await this.options.store.write(token);
      this.token = token;
      this.options.log(`signed in; the access token is cached in ${this.options.store.path}`);
      return token;
    } catch (error) {
      if (!this.stopped.signal.aborted) {
        this.options.log(`sign-in failed: ${(error as Error).message}; the next tool call starts a new sign-in`);
      }
      throw new KairosApiError('UNAUTHORIZED', `sign-in failed: ${(error as Error).message}`, 401);
    }
  }

  /** The token once the running (or a new) sign-in completes, waiting at most loginWaitMs. */
  private async waitForSignIn(): Promise<StoredToken> {
    const login = this.signIn();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.options.loginWaitMs);
    });
    try {
      const token = await Promise.race([login, timeout]);
      if (token) return token;
    } finally {
      clearTimeout(timer);
    }
    const code = this.pending;
    throw new KairosApiError(
      'UNAUTHORIZED',
      code
        ? `not signed in yet: open ${code.verificationUriComplete ?? code.verificationUri} and approve the code ` +
            `${code.userCode}, then call the tool again`
        : 'not signed in yet: the sign-in is starting, call the tool again in a moment',
      401,
      code ? { verification_uri: code.verificationUri, user_code: code.userCode } : undefined,
    );
  }
}
