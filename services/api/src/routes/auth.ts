/**
 * Who am I, how can I sign in, sign out (JSON). The browser redirects of sign-in itself are in
 * auth/browser-routes.ts.
 */
import { API_KEY_SCOPES, AppError, MEMBER_ROLES, hashSecret } from '@kairos/core';
import { getAccount } from '@kairos/db';
import {
  acceptInvitation,
  findMemberRole,
  getUserWithAccount,
  getWebSession,
  listAccountsOfUser,
  revokeWebSession,
  setSessionAccount,
} from '@kairos/db/system';
import { z } from 'zod';
import { audit } from '../audit.js';
import { clearSessionCookies } from '../auth/sessions.js';
import type { AuthContext } from '../auth/context.js';
import type { RouteRegistry } from '../http/route.js';
import { errorResponses } from './common.js';
import type { ApiDeps } from './deps.js';

const providersRecord = z
  .object({
    providers: z.array(
      z.object({
        id: z.enum(['oidc', 'github']),
        name: z.string(),
        signInUrl: z.string().meta({ description: 'Open in the browser; add ?returnTo=/path to come back there' }),
      }),
    ),
    localSignIn: z.boolean().meta({
      description: 'No provider is configured: sign in with the one-time link the server printed at start',
    }),
  })
  .meta({ id: 'SignInProviders' });

const sessionRecord = z
  .object({
    user: z.object({
      id: z.string(),
      email: z.string(),
      name: z.string().nullable(),
      role: z.enum(['member', 'operator']),
    }),
    account: z
      .object({ id: z.string(), name: z.string(), tier: z.enum(['free', 'pro', 'enterprise']) })
      .meta({ description: 'The account the caller acts for (the session may switch: POST /api/account/switch)' }),
    memberRole: z.enum(MEMBER_ROLES).meta({
      description: 'The role the caller acts with in account (a read-scoped API key: at most viewer)',
    }),
    scope: z.enum(API_KEY_SCOPES).meta({ description: 'read: a read-scoped API key (acts as a viewer)' }),
    accounts: z
      .array(z.object({ id: z.string(), name: z.string(), role: z.enum(MEMBER_ROLES) }))
      .meta({ description: "Every account of the caller's user, the one it signed up with first" }),
    authenticatedBy: z.enum(['session', 'api_key', 'access_token']),
    csrfToken: z.string().nullable().meta({
      description: 'Send as X-CSRF-Token on cookie-authenticated writes; null unless signed in by the session cookie',
    }),
  })
  .meta({ id: 'CurrentSession' });

const signInStatusRecord = z
  .object({
    signedIn: z.boolean(),
    session: sessionRecord
      .nullable()
      .meta({ description: 'The caller, as GET /api/auth/session answers; null when signed out' }),
  })
  .meta({ id: 'SignInStatus' });

export function registerAuthRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const tags = ['Authentication'];

  routes.add(
    {
      method: 'get',
      path: '/api/auth/providers',
      operationId: 'listSignInProviders',
      summary: 'How to sign in to the web UI',
      tags,
      public: true,
      responses: { 200: { description: 'Configured identity providers', schema: providersRecord } },
    },
    async () => ({
      body: {
        providers: deps.identityProviders.map((provider) => ({
          id: provider.id,
          name: provider.name,
          signInUrl: `/api/auth/${provider.id}/start`,
        })),
        localSignIn: deps.identityProviders.length === 0,
      },
    }),
  );

  /** The caller as GET /api/auth/session describes them (a credential of no user: FORBIDDEN). */
  const describeCaller = async (auth: AuthContext) => {
    const user = auth.userId ? await getUserWithAccount(deps.db, auth.userId) : null;
    if (!user) throw new AppError('FORBIDDEN', 'this credential belongs to no user');
    const session = auth.sessionId ? await getWebSession(deps.db, auth.sessionId) : null;
    const account = (await getAccount(deps.db, auth.accountId)) ?? user.account;
    const accounts = await listAccountsOfUser(deps.db, user.id);
    return {
      user: { id: user.id, email: user.email, name: user.name, role: user.role },
      account: { id: account.id, name: account.name, tier: account.tier },
      memberRole: auth.role,
      scope: auth.scope,
      accounts: accounts.map(({ accountId, name, role }) => ({ id: accountId, name, role })),
      authenticatedBy: auth.sessionId
        ? ('session' as const)
        : auth.actor.type === 'access_token'
          ? ('access_token' as const)
          : ('api_key' as const),
      csrfToken: session?.csrfToken ?? null,
    };
  };

  routes.add(
    {
      method: 'get',
      path: '/api/auth/status',
      operationId: 'getSignInStatus',
      summary: 'Whether the caller is signed in (signed out is an answer, not a 401)',
      description:
        'What the web UI asks on every page load: signed out answers 200 { signedIn: false, session: null }, ' +
        'so a signed-out visit logs no failed request; signed in, session is what GET /api/auth/session answers. ' +
        'A credential that is wrong is still refused (401), as on every route.',
      tags,
      public: true,
      responses: { 200: { description: 'Signed in or not', schema: signInStatusRecord }, ...errorResponses() },
    },
    async ({ auth }) => {
      const session = auth ? await describeCaller(auth) : null;
      return { body: { signedIn: session !== null, session }, headers: { 'Cache-Control': 'no-store' } };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/auth/session',
      operationId: 'getCurrentSession',
      summary: 'The signed-in user, their account and the CSRF token',
      description:
        'Works with any credential. With the session cookie, csrfToken is the value cookie-authenticated ' +
        'writes must send in X-CSRF-Token (also readable from the kairos_csrf cookie).',
      tags,
      responses: { 200: { description: 'The caller', schema: sessionRecord }, ...errorResponses() },
    },
    async ({ auth }) => ({ body: await describeCaller(auth), headers: { 'Cache-Control': 'no-store' } }),
  );

  routes.add(
    {
      method: 'post',
      path: '/api/auth/signout',
      operationId: 'signOut',
      summary: 'Sign out of the browser session',
      description:
        'Ends the session of the kairos_session cookie (needs X-CSRF-Token) and clears the cookies. ' +
        'Without a session it only clears cookies. API keys and access tokens are revoked elsewhere.',
      tags,
      public: true,
      responses: {
        200: {
          description: 'Signed out',
          schema: z.object({ success: z.literal(true), signedOut: z.boolean() }).meta({ id: 'SignOutResult' }),
        },
        ...errorResponses(),
      },
    },
    async ({ auth, req, res }) => {
      const sessionId = auth?.sessionId;
      if (sessionId) {
        await revokeWebSession(deps.db, sessionId, deps.now());
        await audit(deps, auth, 'auth.signed_out', { type: 'user', id: auth.actor.id });
      }
      clearSessionCookies(req, res, deps.config.KAIROS_PUBLIC_URL);
      return { body: { success: true, signedOut: sessionId !== undefined } };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/account/switch',
      role: 'viewer',
      operationId: 'switchAccount',
      summary: 'Switch the browser session to another account of its user',
      description:
        "The session then acts for that account with the user's role there (GET /api/auth/session lists the " +
        'accounts). Browser sessions only: an API key or access token acts for the account it was made in.',
      tags: ['Members'],
      body: z.strictObject({ accountId: z.string() }).meta({ id: 'SwitchAccountInput' }),
      responses: { 200: { description: 'The caller, now', schema: sessionRecord }, ...errorResponses(400, 404) },
    },
    async ({ auth, body }) => {
      if (!auth.sessionId || !auth.userId) {
        throw new AppError(
          'VALIDATION_ERROR',
          'switching accounts is for browser sessions; a key or token acts for its own account',
        );
      }
      const accounts = await listAccountsOfUser(deps.db, auth.userId);
      if (!accounts.some((account) => account.accountId === body.accountId)) {
        throw new AppError('NOT_FOUND', 'account not found', { id: body.accountId });
      }
      await setSessionAccount(deps.db, auth.sessionId, body.accountId);
      const role = accounts.find((account) => account.accountId === body.accountId)!.role;
      const switched = { ...auth, accountId: body.accountId, role };
      await audit(deps, switched, 'auth.account_switched', { type: 'account', id: body.accountId });
      return { body: await describeCaller(switched), headers: { 'Cache-Control': 'no-store' } };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/invitations/accept',
      role: 'viewer',
      operationId: 'acceptInvitation',
      summary: "Join an account by an invitation's token",
      description:
        "The signed-in user becomes a member with the invitation's role (an existing membership is kept as it is). " +
        'A token works once, for 7 days. A browser session then switches to the account.',
      tags: ['Members'],
      body: z.strictObject({ token: z.string().min(1) }).meta({ id: 'AcceptInvitationInput' }),
      responses: {
        200: {
          description: 'Joined',
          schema: z.object({ accountId: z.string(), role: z.enum(MEMBER_ROLES) }).meta({ id: 'AcceptedInvitation' }),
        },
        ...errorResponses(400, 404),
      },
    },
    async ({ auth, body }) => {
      if (!auth.userId) throw new AppError('FORBIDDEN', 'this credential belongs to no user');
      const invitation = await acceptInvitation(deps.db, hashSecret(body.token), auth.userId, deps.now());
      if (!invitation) {
        throw new AppError('NOT_FOUND', 'invitation not found: unknown, already used, revoked or expired');
      }
      const role = (await findMemberRole(deps.db, auth.userId, invitation.accountId)) ?? invitation.role;
      if (auth.sessionId) await setSessionAccount(deps.db, auth.sessionId, invitation.accountId);
      await audit(
        deps,
        { ...auth, accountId: invitation.accountId, role },
        'invitation.accepted',
        { type: 'invitation', id: invitation.id },
        { email: invitation.email, before: null, after: { userId: auth.userId, role } },
      );
      return { body: { accountId: invitation.accountId, role } };
    },
  );
}
