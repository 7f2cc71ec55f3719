/**
 * Browser navigations (redirects and HTML, so outside the JSON API and /api/doc):
 *
 *   GET  /api/auth/{oidc|github}/start?returnTo=/path   → 302 to the identity provider
 *   GET  /api/auth/{oidc|github}/callback               → session cookie, 302 to returnTo (default /)
 *   GET  /api/auth/local?token=…                        → one-time local admin link, 302 to /
 *   GET  /device?user_code=…                            → verification page (sign-in links when signed out)
 *   POST /device  (form: user_code, decision=approve|deny, _csrf)
 */
import { AppError, hashSecret } from '@kairos/core';
import { consumeLoginToken, findPendingDeviceCode, getUserWithAccount, getWebSession } from '@kairos/db/system';
import express, { type Request, type Response, type Router } from 'express';
import type { ApiDeps } from '../routes/deps.js';
import { decideDevice, formatUserCode, normalizeUserCode, VERIFICATION_PATH } from './device-flow.js';
import { LOCAL_SIGN_IN_PATH } from './local-admin.js';
import { escapeHtml, publicBaseUrl, renderPage } from './pages.js';
import { newFlow, type IdentityProvider } from './providers.js';
import { completeSignIn, resolveExternalUser } from './sign-in.js';
import { safeReturnTo, type SignInFlows } from './sign-in-flow.js';
import { CSRF_FORM_FIELD } from './sessions.js';

type PageHandler = (req: Request, res: Response) => Promise<void>;

/**
 * Errors on a browser navigation become a page, not JSON. A refusal written for people (an AppError
 * below 500: an expired sign-in, an unverified address) is shown as it is; anything else (the
 * identity provider unreachable, a token exchange refused, a bug) shows a generic message with the
 * request id as its reference, and the detail, which may name internal addresses, goes to the log.
 */
function page(deps: ApiDeps, handler: PageHandler): PageHandler {
  return async (req, res) => {
    try {
      await handler(req, res);
    } catch (error) {
      const known = error instanceof AppError;
      const status = known ? error.status : 400;
      let message: string;
      if (known && status < 500) {
        message = error.message;
      } else {
        const { message: detail, code, cause } = error as Error & { code?: unknown };
        // openid-client puts the provider's answer (e.g. invalid_client) in code and cause.
        deps.logger.warn('browser sign-in step failed', {
          requestId: req.requestId,
          path: req.path,
          error: detail,
          code,
          cause,
        });
        message =
          'The sign-in could not be completed. Try again; if it keeps failing, give your administrator ' +
          `this reference: ${req.requestId ?? 'none'}.`;
      }
      res
        .status(status)
        .type('html')
        .send(renderPage('Sign-in failed', `<p>${escapeHtml(message)}</p><p><a href="/">Back to Kairos</a></p>`));
    }
  };
}

function signInLinks(providers: IdentityProvider[], returnTo: string): string {
  if (providers.length === 0) {
    return '<p>Sign in with the one-time link the server printed when it started, then reload this page.</p>';
  }
  return providers
    .map(
      (provider) =>
        `<p><a class="button" href="/api/auth/${provider.id}/start?returnTo=${encodeURIComponent(returnTo)}">` +
        `Sign in with ${escapeHtml(provider.name)}</a></p>`,
    )
    .join('\n');
}

export function createBrowserAuthRouter(deps: ApiDeps, providers: IdentityProvider[], flows: SignInFlows): Router {
  const router = express.Router();
  const byId = new Map(providers.map((provider) => [provider.id, provider]));
  const providerOf = (req: Request) => {
    const provider = byId.get(req.params.provider as IdentityProvider['id']);
    if (!provider) throw new AppError('NOT_FOUND', `sign-in with ${req.params.provider} is not configured`);
    return provider;
  };
  const redirectUri = (req: Request, provider: IdentityProvider) =>
    `${publicBaseUrl(deps.config, req)}/api/auth/${provider.id}/callback`;

  router.get(
    '/api/auth/:provider/start',
    page(deps, async (req, res) => {
      const provider = providerOf(req);
      const flow = newFlow(provider.id, safeReturnTo(req.query.returnTo));
      const url = await provider.authorizationUrl(flow, redirectUri(req, provider));
      await flows.begin(req, res, flow);
      res.redirect(302, url.toString());
    }),
  );

  router.get(
    '/api/auth/:provider/callback',
    page(deps, async (req, res) => {
      const provider = providerOf(req);
      const flow = await flows.finish(req, res, provider.id);
      if (!flow) {
        throw new AppError('VALIDATION_ERROR', 'This sign-in expired or was started in another browser. Try again.');
      }
      const callbackUrl = new URL(req.originalUrl, `${publicBaseUrl(deps.config, req)}/`);
      const identity = await provider.identify(callbackUrl, flow, redirectUri(req, provider));
      const user = await resolveExternalUser(deps, identity);
      await completeSignIn(deps, req, res, user, provider.id);
      res.redirect(302, flow.returnTo);
    }),
  );

  router.get(
    LOCAL_SIGN_IN_PATH,
    page(deps, async (req, res) => {
      const token = typeof req.query.token === 'string' ? req.query.token : '';
      const userId = token ? await consumeLoginToken(deps.db, hashSecret(token), deps.now()) : null;
      const user = userId ? await getUserWithAccount(deps.db, userId) : null;
      if (!user) {
        throw new AppError(
          'UNAUTHORIZED',
          'This sign-in link is invalid, expired or already used. Get a new one with: pnpm --silent kairos login-link',
        );
      }
      await completeSignIn(deps, req, res, user, 'local-link');
      res.redirect(302, '/');
    }),
  );

  const devicePage = async (req: Request, res: Response, notice = '', status = 200) => {
    const typed = typeof req.body?.user_code === 'string' ? req.body.user_code : req.query.user_code;
    const userCode = typeof typed === 'string' ? normalizeUserCode(typed) : null;
    const session = req.auth?.sessionId ? await getWebSession(deps.db, req.auth.sessionId) : null;
    if (!session || !req.auth?.userId) {
      const returnTo = `${VERIFICATION_PATH}${userCode ? `?user_code=${formatUserCode(userCode)}` : ''}`;
      res.type('html').send(renderPage('Connect a device', signInLinks(providers, returnTo)));
      return;
    }
    const user = await getUserWithAccount(deps.db, req.auth.userId);
    const pending = userCode ? await findPendingDeviceCode(deps.db, userCode, deps.now()) : null;
    const request = pending
      ? `<p><strong>${escapeHtml(pending.clientName ?? 'A device')}</strong> asks to access your Kairos account.</p>`
      : '';
    const body = `${notice}
<p class="muted">Signed in as ${escapeHtml(user?.email ?? '')}. Enter the code shown on your device.</p>
${request}
<form method="post" action="${VERIFICATION_PATH}">
<input type="hidden" name="${CSRF_FORM_FIELD}" value="${escapeHtml(session.csrfToken)}">
<p><input name="user_code" value="${userCode ? formatUserCode(userCode) : ''}" placeholder="XXXX-XXXX" autocomplete="off" required></p>
<button name="decision" value="approve">Approve</button>
<button name="decision" value="deny">Deny</button>
</form>`;
    res.status(status).type('html').send(renderPage('Connect a device', body));
  };

  router.get(
    VERIFICATION_PATH,
    page(deps, (req, res) => devicePage(req, res)),
  );

  router.post(
    VERIFICATION_PATH,
    page(deps, async (req, res) => {
      if (!req.auth?.sessionId) return devicePage(req, res);
      const decision = req.body?.decision === 'approve' ? 'approved' : 'denied';
      try {
        const code = await decideDevice(deps, req.auth, String(req.body?.user_code ?? ''), decision);
        const what = decision === 'approved' ? 'approved' : 'denied';
        const next = decision === 'approved' ? 'You can return to your device.' : 'The device gets no access.';
        res
          .type('html')
          .send(
            renderPage(`Device ${what}`, `<p>${escapeHtml(code.clientName ?? 'The device')} was ${what}. ${next}</p>`),
          );
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== 'NOT_FOUND') throw error;
        await devicePage(req, res, `<p><strong>${escapeHtml(error.message)}</strong></p>`, 404);
      }
    }),
  );

  return router;
}
