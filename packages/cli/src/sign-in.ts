/**
 * Where the CLI's API is and who it is: KAIROS_URL (default http://127.0.0.1:3000), then
 * KAIROS_API_KEY, else the token `kairos login` cached (device flow, as the MCP server signs in) in
 * KAIROS_TOKEN_FILE (default $XDG_CONFIG_HOME/kairos/cli-token.json, ~/.config/kairos/…).
 */
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import {
  KairosApiError,
  apiKeyCredentials,
  bearerCredentials,
  createKairosClient,
  type KairosClient,
} from '@kairos/client';
import { TokenStore, pollForToken, requestDeviceCode } from '@kairos/client/node';

export type Env = Record<string, string | undefined>;

export const CLI_VERSION = '0.1.0';

export interface SignIn {
  apiUrl: string;
  store: TokenStore;
  log(message: string): void;
}

export function signInOf(env: Env, log: (message: string) => void): SignIn {
  const apiUrl = (env.KAIROS_URL?.trim() || 'http://127.0.0.1:3000').replace(/\/+$/, '');
  const configHome = env.XDG_CONFIG_HOME?.trim() || join(homedir(), '.config');
  const path = env.KAIROS_TOKEN_FILE?.trim() || join(configHome, 'kairos', 'cli-token.json');
  return { apiUrl, store: new TokenStore(path, (message) => log(`warning: ${message}`)), log };
}

/** The API client with the caller's credentials; UNAUTHORIZED when there are none. */
export async function connect(signIn: SignIn, env: Env): Promise<KairosClient> {
  const apiKey = env.KAIROS_API_KEY?.trim();
  const token = apiKey ? null : await signIn.store.read(signIn.apiUrl, new Date());
  if (!apiKey && !token) {
    throw new KairosApiError(
      'UNAUTHORIZED',
      `not signed in to ${signIn.apiUrl}: set KAIROS_API_KEY, or run \`kairos login\``,
      null,
    );
  }
  return createKairosClient({
    baseUrl: signIn.apiUrl,
    credentials: apiKey ? apiKeyCredentials(apiKey) : bearerCredentials(token!.accessToken),
    userAgent: `kairos-cli/${CLI_VERSION}`,
  });
}

/** The device flow: shows the link and code, waits for the approval, caches the token. */
export async function login(signIn: SignIn): Promise<void> {
  const flow = { apiUrl: signIn.apiUrl };
  const code = await requestDeviceCode(flow, `Kairos CLI on ${hostname()}`);
  signIn.log(
    `open ${code.verificationUriComplete ?? code.verificationUri} signed in to Kairos and approve the code ${code.userCode}`,
  );
  const issued = await pollForToken(flow, code);
  const now = new Date();
  await signIn.store.write({
    apiUrl: signIn.apiUrl,
    accessToken: issued.accessToken,
    tokenType: 'Bearer',
    expiresAt: issued.expiresAt.toISOString(),
    obtainedAt: now.toISOString(),
  });
  signIn.log(`signed in; the token is cached in ${signIn.store.path}`);
}
