import { LIMITS } from '@kairos/core';
import { queueShardsOf } from '@kairos/queue';
import { serveMetrics } from '@kairos/runtime';
import cookieParser from 'cookie-parser';
import express, { type Express } from 'express';
import { AccessTokenAuthenticator, authenticationMiddleware, rejectRefusedCredentials } from './auth/authenticate.js';
import { createBrowserAuthRouter } from './auth/browser-routes.js';
import { createRecipientConfirmationRouter } from './auth/recipient-confirmation.js';
import { configuredProviders } from './auth/providers.js';
import { SessionAuthenticator } from './auth/sessions.js';
import { SignInFlows } from './auth/sign-in-flow.js';
import { BULL_BOARD_PATH, createBullBoardRouter } from './bull-board.js';
import { registerDocsRoutes } from './docs/routes.js';
import { errorHandler, notFoundHandler } from './http/errors.js';
import { requestContext } from './http/request-context.js';
import { securityHeaders } from './http/security-headers.js';
import { RouteRegistry } from './http/route.js';
import { registerBacktestRoutes } from './routes/backtest.js';
import { registerUpcomingRoutes } from './routes/upcoming.js';
import { CONFIG_PATH, configBodyParsers, registerConfigRoutes } from './routes/config.js';
import { registerDashboardRoutes } from './routes/dashboard.js';
import { registerEndpointRoutes } from './routes/endpoints.js';
import { registerJobRoutes } from './routes/jobs.js';
import { registerMcpRoute } from './routes/mcp.js';
import { AccountLimits } from './quotas.js';
import { BULL_BOARD_LIMIT, RateLimiter } from './rate-limit.js';
import { registerAccountRoutes } from './routes/account.js';
import { registerAnalysisRoutes } from './routes/analysis.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerApiKeyRoutes } from './routes/api-keys.js';
import { registerAuthRoutes } from './routes/auth.js';
import type { ApiDeps, ApiDepsInput } from './routes/deps.js';
import { DEVICE_TOKEN_PATH, oauthErrorHandler, registerDeviceRoutes } from './routes/devices.js';
import { registerNotificationRoutes } from './routes/notifications.js';
import { registerRunRoutes } from './routes/runs.js';
import { registerManualRunRoutes } from './routes/manual-runs.js';
import { registerSchedulingRoutes } from './routes/scheduling.js';
import { registerMemberRoutes } from './routes/members.js';
import { registerSecretRoutes } from './routes/secrets.js';
import { registerSigningKeyRoutes } from './routes/signing-keys.js';
import { registerSystemRoutes } from './routes/system.js';
import { createWebRouter } from './web.js';
import { createManualRuns } from './manual-runs.js';

/** The identity and limit pieces a caller did not provide, from config, db and redis. */
function withDefaults(input: ApiDepsInput): ApiDeps {
  const accountLimits = input.accountLimits ?? new AccountLimits(input.db);
  return {
    ...input,
    accessTokens:
      input.accessTokens ??
      new AccessTokenAuthenticator(input.db, input.config.KAIROS_AUTH_CACHE_SECONDS * 1000, input.now),
    accountLimits,
    rateLimiter:
      input.rateLimiter ??
      new RateLimiter({
        redis: input.redis,
        prefix: input.config.KAIROS_QUEUE_PREFIX,
        accountLimit: (accountId) => accountLimits.get(accountId),
        onError: (error) =>
          input.logger.warn('rate limiter unavailable; request not limited', { error: error.message }),
      }),
    identityProviders: input.identityProviders ?? configuredProviders(input.config),
    manualRuns: input.manualRuns ?? createManualRuns(input.redis, input.config.KAIROS_QUEUE_PREFIX),
  };
}

export function createApp(input: ApiDepsInput): { app: Express; routes: RouteRegistry; close(): Promise<void> } {
  const deps = withDefaults(input);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.KAIROS_TRUST_PROXY);
  app.set('json spaces', 0);
  app.use(securityHeaders(deps.config.KAIROS_PUBLIC_URL));
  app.use(requestContext(deps.logger));
  const router = express.Router();
  const routes = new RouteRegistry(router);
  // Prometheus scrape (text format, so not a documented JSON route of the registry), before
  // authentication: it has its own optional bearer token, KAIROS_METRICS_TOKEN (docs/operations/observability.md).
  app.get('/metrics', (req, res) => serveMetrics(req, res, { token: deps.config.KAIROS_METRICS_TOKEN }));
  // Configuration documents: larger, and JSON or YAML (routes/config.ts). Parsed first, so the
  // general parser below leaves them alone.
  app.use(CONFIG_PATH, ...configBodyParsers());
  // Parse JSON whatever the declared type says is JSON-ish; a non-JSON body leaves req.body undefined.
  app.use(express.json({ limit: LIMITS.requestBodyMaxBytes, type: ['application/json', 'application/*+json'] }));
  // OAuth endpoints and the server-rendered device page take form posts too.
  const formPaths = ['/api/auth/device', '/device'];
  app.use(formPaths, express.urlencoded({ extended: false, limit: '16kb' }));
  app.use('/api/auth/device', (req, _res, next) => {
    req.body ??= {}; // the device endpoints accept an empty body (RFC 8628 clients may send none)
    next();
  });
  // The web UI's static files and client-side routes (GET /device included: the UI's verification
  // page replaces the server-rendered one when the UI is built; POST /device still takes forms).
  const web = createWebRouter(deps.config.KAIROS_WEB_DIR);
  if (web) app.use(web);
  app.use(cookieParser());
  app.use(authenticationMiddleware([deps.apiKeys, deps.accessTokens, new SessionAuthenticator(deps.db, deps.now)]));
  // Everything but the probes and metrics counts against the caller's rate limit. Bull Board has a
  // bucket of its own per account (its page load alone exceeds a Free burst); anonymous requests
  // and refused credentials count against their address, like everywhere else.
  app.use(['/api', '/device'], deps.rateLimiter.middleware());
  app.use(BULL_BOARD_PATH, deps.rateLimiter.middleware({ name: 'bull-board', accountLimit: BULL_BOARD_LIMIT }));
  app.use(rejectRefusedCredentials);
  app.use(routes.rejectUndecodablePath());
  const bullBoard = createBullBoardRouter({
    db: deps.db,
    redis: deps.redis,
    prefix: deps.config.KAIROS_QUEUE_PREFIX,
    shards: queueShardsOf(deps.config),
  });
  app.use(bullBoard.router);
  app.use(createRecipientConfirmationRouter(deps));
  app.use(
    createBrowserAuthRouter(
      deps,
      deps.identityProviders,
      new SignInFlows(deps.redis, deps.config.KAIROS_QUEUE_PREFIX, deps.config.KAIROS_PUBLIC_URL),
    ),
  );

  registerSystemRoutes(routes, deps);
  registerJobRoutes(routes, deps);
  registerEndpointRoutes(routes, deps);
  registerBacktestRoutes(routes, deps);
  registerUpcomingRoutes(routes, deps);
  registerSchedulingRoutes(routes, deps);
  registerRunRoutes(routes, deps);
  registerManualRunRoutes(routes, deps);
  registerDashboardRoutes(routes, deps);
  registerSigningKeyRoutes(routes, deps);
  registerSecretRoutes(routes, deps);
  registerAuthRoutes(routes, deps);
  registerDeviceRoutes(routes, deps);
  registerApiKeyRoutes(routes, deps);
  registerAccountRoutes(routes, deps);
  registerMemberRoutes(routes, deps);
  registerAnalysisRoutes(routes, deps);
  registerNotificationRoutes(routes, deps);
  registerConfigRoutes(routes, deps);
  registerAdminRoutes(routes, deps);
  registerDocsRoutes(router, routes, deps);
  registerMcpRoute(router, deps); // POST /api/mcp: the MCP tools over Streamable HTTP (not a REST route)
  app.use(router);

  app.use(notFoundHandler);
  app.use(DEVICE_TOKEN_PATH, oauthErrorHandler); // RFC 8628: that route's errors in the OAuth shape
  app.use(errorHandler(deps.logger));
  return {
    app,
    routes,
    close: async () => {
      await bullBoard.close();
      await deps.manualRuns.close();
    },
  };
}
