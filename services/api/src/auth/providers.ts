/**
 * External identity providers for web sign-in: any OpenID Connect issuer (authorization code +
 * PKCE + nonce, via openid-client) and GitHub OAuth (authorization code + PKCE + state). Both are
 * configured by environment; `configuredProviders` returns the ones that are.
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '@kairos/core';
import * as oidc from 'openid-client';
import type { ApiConfig } from '../config.js';
import { withoutTrailingSlashes } from './pages.js';
import type { SignInFlow } from './sign-in-flow.js';

/** What a provider tells us about the person signing in. */
export interface ExternalIdentity {
  /** `oidc:<issuer>` or `github`: an identity is (provider, subject). */
  provider: string;
  subject: string;
  email: string | null;
  /** The provider vouches for the email (needed to link to an existing user with that email). */
  emailVerified: boolean;
  name: string | null;
}

export interface IdentityProvider {
  id: SignInFlow['provider'];
  name: string;
  /** Where to send the browser; the flow holds state, nonce and PKCE verifier. */
  authorizationUrl(flow: SignInFlow, redirectUri: string): Promise<URL>;
  /** Exchanges the callback's code (checking state, PKCE, nonce) for the identity. */
  identify(callbackUrl: URL, flow: SignInFlow, redirectUri: string): Promise<ExternalIdentity>;
}

const randomToken = () => randomBytes(32).toString('base64url');

export function newFlow(provider: SignInFlow['provider'], returnTo: string): SignInFlow {
  return {
    provider,
    state: randomToken(),
    codeVerifier: oidc.randomPKCECodeVerifier(),
    ...(provider === 'oidc' ? { nonce: randomToken() } : {}),
    returnTo,
  };
}

const isLoopback = (url: URL) => ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);

/** Any standards-compliant issuer (discovery document at <issuer>/.well-known/openid-configuration). */
export class OidcProvider implements IdentityProvider {
  readonly id = 'oidc' as const;
  private configuration: Promise<oidc.Configuration> | undefined;

  constructor(
    readonly name: string,
    private readonly settings: { issuer: string; clientId: string; clientSecret?: string; scopes: string },
  ) {}

  /** Discovered once (lazily, so the api starts while the IdP is down); retried after a failure. */
  private config(): Promise<oidc.Configuration> {
    const issuer = new URL(this.settings.issuer);
    this.configuration ??= oidc
      .discovery(
        issuer,
        this.settings.clientId,
        this.settings.clientSecret,
        this.settings.clientSecret ? oidc.ClientSecretBasic(this.settings.clientSecret) : oidc.None(),
        // Plain http only for an issuer on this machine (development IdPs, tests).
        issuer.protocol === 'http:' && isLoopback(issuer) ? { execute: [oidc.allowInsecureRequests] } : {},
      )
      .catch((error: Error) => {
        this.configuration = undefined;
        throw new AppError('SERVICE_UNAVAILABLE', `identity provider unavailable: ${error.message}`);
      });
    return this.configuration;
  }

  async authorizationUrl(flow: SignInFlow, redirectUri: string): Promise<URL> {
    return oidc.buildAuthorizationUrl(await this.config(), {
      redirect_uri: redirectUri,
      scope: this.settings.scopes,
      state: flow.state,
      nonce: flow.nonce!,
      code_challenge: await oidc.calculatePKCECodeChallenge(flow.codeVerifier),
      code_challenge_method: 'S256',
    });
  }

  async identify(callbackUrl: URL, flow: SignInFlow): Promise<ExternalIdentity> {
    const config = await this.config();
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce!,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    // Many issuers put only `sub` in the ID token; the rest comes from userinfo.
    const info =
      typeof claims.email === 'string'
        ? claims
        : { ...claims, ...(await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)) };
    return {
      provider: `oidc:${config.serverMetadata().issuer}`,
      subject: claims.sub,
      email: typeof info.email === 'string' ? info.email.toLowerCase() : null,
      emailVerified: info.email_verified === true,
      name: typeof info.name === 'string' ? info.name : null,
    };
  }
}

interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

const GITHUB_TIMEOUT_MS = 10_000;

/** GitHub OAuth apps. Endpoints are configurable (GitHub Enterprise Server, a local fake in tests). */
export class GitHubProvider implements IdentityProvider {
  readonly id = 'github' as const;
  readonly name = 'GitHub';

  constructor(
    private readonly settings: {
      clientId: string;
      clientSecret: string;
      authorizeUrl: string;
      tokenUrl: string;
      apiUrl: string;
    },
  ) {}

  async authorizationUrl(flow: SignInFlow, redirectUri: string): Promise<URL> {
    const url = new URL(this.settings.authorizeUrl);
    url.search = new URLSearchParams({
      client_id: this.settings.clientId,
      redirect_uri: redirectUri,
      scope: 'read:user user:email',
      state: flow.state,
      code_challenge: await oidc.calculatePKCECodeChallenge(flow.codeVerifier),
      code_challenge_method: 'S256',
      allow_signup: 'true',
    }).toString();
    return url;
  }

  async identify(callbackUrl: URL, flow: SignInFlow, redirectUri: string): Promise<ExternalIdentity> {
    const params = callbackUrl.searchParams;
    if (params.get('error')) {
      throw new AppError(
        'FORBIDDEN',
        `GitHub refused the sign-in: ${params.get('error_description') ?? params.get('error')}`,
      );
    }
    const code = params.get('code');
    if (!code || params.get('state') !== flow.state) {
      throw new AppError('VALIDATION_ERROR', 'the sign-in response does not match this browser (state)');
    }
    const tokenResponse = await fetch(this.settings.tokenUrl, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: this.settings.clientId,
        client_secret: this.settings.clientSecret,
        code,
        redirect_uri: redirectUri,
        code_verifier: flow.codeVerifier,
      }),
      signal: AbortSignal.timeout(GITHUB_TIMEOUT_MS),
    });
    // GitHub answers errors with 200 and an `error` field.
    const token = (await tokenResponse.json().catch(() => ({}))) as { access_token?: string; error?: string };
    if (!tokenResponse.ok || !token.access_token) {
      throw new AppError('FORBIDDEN', `GitHub did not issue a token: ${token.error ?? tokenResponse.status}`);
    }
    const user = await this.api<{ id: number; login: string; name: string | null; email: string | null }>(
      '/user',
      token.access_token,
    );
    const emails = await this.api<GitHubEmail[]>('/user/emails', token.access_token).catch(() => []);
    const primary = emails.find((entry) => entry.primary && entry.verified);
    return {
      provider: 'github',
      subject: String(user.id),
      email: (primary?.email ?? user.email)?.toLowerCase() ?? null,
      emailVerified: primary !== undefined,
      name: user.name ?? user.login,
    };
  }

  private async api<T>(path: string, accessToken: string): Promise<T> {
    const response = await fetch(new URL(path.slice(1), `${withoutTrailingSlashes(this.settings.apiUrl)}/`), {
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${accessToken}`,
        'user-agent': 'kairos',
      },
      signal: AbortSignal.timeout(GITHUB_TIMEOUT_MS),
    });
    if (!response.ok) throw new AppError('SERVICE_UNAVAILABLE', `GitHub API ${path} answered ${response.status}`);
    return (await response.json()) as T;
  }
}

export function configuredProviders(config: ApiConfig): IdentityProvider[] {
  const providers: IdentityProvider[] = [];
  if (config.KAIROS_OIDC_ISSUER && config.KAIROS_OIDC_CLIENT_ID) {
    providers.push(
      new OidcProvider(config.KAIROS_OIDC_NAME, {
        issuer: config.KAIROS_OIDC_ISSUER,
        clientId: config.KAIROS_OIDC_CLIENT_ID,
        ...(config.KAIROS_OIDC_CLIENT_SECRET ? { clientSecret: config.KAIROS_OIDC_CLIENT_SECRET } : {}),
        scopes: config.KAIROS_OIDC_SCOPES,
      }),
    );
  }
  if (config.KAIROS_GITHUB_CLIENT_ID && config.KAIROS_GITHUB_CLIENT_SECRET) {
    providers.push(
      new GitHubProvider({
        clientId: config.KAIROS_GITHUB_CLIENT_ID,
        clientSecret: config.KAIROS_GITHUB_CLIENT_SECRET,
        authorizeUrl: config.KAIROS_GITHUB_AUTHORIZE_URL,
        tokenUrl: config.KAIROS_GITHUB_TOKEN_URL,
        apiUrl: config.KAIROS_GITHUB_API_URL,
      }),
    );
  }
  return providers;
}
