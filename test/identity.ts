/**
 * Real servers and a cookie-keeping HTTP client for the identity tests (services/api/test) and the
 * browser harness (test/browser/harness.ts): the api on a real port, a
 * local OpenID Connect provider (oidc-provider) whose interaction logs in a chosen user at once,
 * and a fake GitHub speaking the OAuth endpoints Kairos calls. All on 127.0.0.1.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { createSignInLink } from '../services/api/src/auth/local-admin.js';
import type { ApiHarness } from './api.js';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 first (so the URL is known), then serves with the handler set later. */
export async function listen(): Promise<RunningServer & { serve(handler: RequestListener): void }> {
  let handler: RequestListener = (_req, res) => res.writeHead(503).end();
  const server: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    serve: (next) => {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface BrowserResponse {
  status: number;
  url: string;
  headers: Headers;
  text: string;
  /** Every URL visited, in order (the redirect chain). */
  visited: string[];
}

/** A minimal browser: keeps cookies per origin (ignoring Path) and follows redirects. */
export class Browser {
  private readonly jar = new Map<string, Map<string, string>>();
  /** Raw Set-Cookie headers seen, for attribute checks. */
  readonly setCookies: string[] = [];

  cookie(origin: string, name: string): string | undefined {
    return this.jar.get(origin)?.get(name);
  }

  private store(url: URL, headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      this.setCookies.push(line);
      const [pair, ...attributes] = line.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index).trim();
      const value = pair!.slice(index + 1).trim();
      const expired = attributes.some((attribute) => {
        const [key, val] = attribute.trim().split('=');
        if (key?.toLowerCase() === 'max-age') return Number(val) <= 0;
        if (key?.toLowerCase() === 'expires') return Date.parse(val ?? '') <= Date.now();
        return false;
      });
      const cookies = this.jar.get(url.origin) ?? new Map<string, string>();
      if (expired || value === '') cookies.delete(name);
      else cookies.set(name, value);
      this.jar.set(url.origin, cookies);
    }
  }

  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<BrowserResponse> {
    let target = new URL(url);
    let method = init.method ?? 'GET';
    let body: string | undefined = init.form ? new URLSearchParams(init.form).toString() : undefined;
    const visited: string[] = [];
    for (let hop = 0; hop < 20; hop += 1) {
      visited.push(target.toString());
      const cookies = [...(this.jar.get(target.origin) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`);
      const response = await fetch(target, {
        method,
        redirect: 'manual',
        headers: {
          ...(cookies.length > 0 ? { cookie: cookies.join('; ') } : {}),
          ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          ...(hop === 0 ? init.headers : {}),
        },
        ...(body !== undefined ? { body } : {}),
      });
      this.store(target, response.headers);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.arrayBuffer();
        target = new URL(location, target);
        if (response.status !== 307 && response.status !== 308) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      return {
        status: response.status,
        url: target.toString(),
        headers: response.headers,
        text: await response.text(),
        visited,
      };
    }
    throw new Error(`too many redirects from ${url}`);
  }
}

export interface IdpUser {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

/**
 * oidc-provider on 127.0.0.1 with one confidential client. Its interaction step logs in
 * `idp.user` and grants consent at once (no form), so a browser goes straight through.
 */
export async function startTestIdp(options: { clientId: string; clientSecret: string; redirectUri: string }) {
  const server = await listen();
  const state: { user: IdpUser; logins: number } = {
    user: { sub: 'alice', email: 'alice@example.test', email_verified: true, name: 'Alice' },
    logins: 0,
  };
  // oidc-provider warns that its in-memory storage is for development: that is what a test wants.
  const warn = console.warn;
  console.warn = () => undefined;
  const provider = new Provider(server.url, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    jwks: {
      keys: [
        {
          ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
          kid: 'test',
          use: 'sig',
          alg: 'RS256',
        },
      ],
    },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ ...state.user, sub }),
    }),
  });
  console.warn = warn;
  const callback = provider.callback();
  server.serve(async (req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith('/interaction/')) return callback(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === 'login') {
        state.logins += 1;
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: state.user.sub } },
          {
            mergeWithLastSubmission: false,
          },
        );
        return;
      }
      const grant = new provider.Grant({
        accountId: details.session!.accountId,
        clientId: details.params.client_id as string,
      });
      grant.addOIDCScope(String(details.params.scope));
      await provider.interactionFinished(
        req,
        res,
        { consent: { grantId: await grant.save() } },
        {
          mergeWithLastSubmission: true,
        },
      );
    } catch (error) {
      res.writeHead(500).end((error as Error).message);
    }
  });
  return { url: server.url, state, close: server.close };
}

/** The GitHub OAuth endpoints Kairos uses, approving at once, checking client secret and PKCE. */
export async function startFakeGitHub(options: { clientId: string; clientSecret: string }) {
  const server = await listen();
  const state = {
    user: { id: 4242, login: 'octo', name: 'Octo Cat', email: null as string | null },
    emails: [{ email: 'octo@example.test', primary: true, verified: true }],
    tokenRequests: 0,
  };
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const tokens = new Set<string>();
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  server.serve(async (req, res) => {
    const url = new URL(req.url!, server.url);
    if (url.pathname === '/login/oauth/authorize') {
      const params = url.searchParams;
      if (params.get('client_id') !== options.clientId || params.get('code_challenge_method') !== 'S256') {
        return json(res, 400, { error: 'bad request' });
      }
      const code = randomBytes(8).toString('hex');
      codes.set(code, { challenge: params.get('code_challenge')!, redirectUri: params.get('redirect_uri')! });
      const back = new URL(params.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', params.get('state')!);
      return res.writeHead(302, { location: back.toString() }).end();
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      state.tokenRequests += 1;
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const form = new URLSearchParams(raw);
      const issued = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifierOk =
        issued &&
        createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url') === issued.challenge;
      if (
        !issued ||
        !verifierOk ||
        form.get('client_secret') !== options.clientSecret ||
        form.get('redirect_uri') !== issued.redirectUri
      ) {
        return json(res, 200, { error: 'bad_verification_code' });
      }
      const token = `gho_${randomBytes(8).toString('hex')}`;
      tokens.add(token);
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !tokens.has(token)) return json(res, 401, { message: 'Bad credentials' });
    if (url.pathname === '/user') return json(res, 200, state.user);
    if (url.pathname === '/user/emails') return json(res, 200, state.emails);
    return json(res, 404, { message: 'Not Found' });
  });
  return {
    url: server.url,
    state,
    env: {
      KAIROS_GITHUB_CLIENT_ID: options.clientId,
      KAIROS_GITHUB_CLIENT_SECRET: options.clientSecret,
      KAIROS_GITHUB_AUTHORIZE_URL: `${server.url}/login/oauth/authorize`,
      KAIROS_GITHUB_TOKEN_URL: `${server.url}/login/oauth/access_token`,
      KAIROS_GITHUB_API_URL: server.url,
    },
    close: server.close,
  };
}

export interface SignedInSession {
  /** Cookie header value for supertest. */
  cookie: string;
  csrfToken: string;
}

/** Signs a user in through a one-time link (the same path as the local admin), with supertest. */
export async function signInWithLink(harness: ApiHarness, userId: string, now = new Date()): Promise<SignedInSession> {
  const { url } = await createSignInLink(harness.db, { userId, baseUrl: 'http://127.0.0.1', now });
  const response = await harness.http.get(new URL(url).pathname + new URL(url).search);
  if (response.status !== 302) throw new Error(`sign-in link answered ${response.status}: ${response.text}`);
  const setCookies = response.headers['set-cookie'] as unknown as string[];
  const cookies = Object.fromEntries(setCookies.map((line) => line.split(';')[0]!.split('=') as [string, string]));
  return {
    cookie: `kairos_session=${cookies.kairos_session}; kairos_csrf=${cookies.kairos_csrf}`,
    csrfToken: cookies.kairos_csrf!,
  };
}
