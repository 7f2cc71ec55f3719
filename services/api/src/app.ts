import { LIMITS } from '@kairos/core';
import express, { type Express } from 'express';
import { authenticationMiddleware } from './auth/authenticate.js';
import { registerDocsRoutes } from './docs/routes.js';
import { errorHandler, notFoundHandler } from './http/errors.js';
import { requestContext } from './http/request-context.js';
import { RouteRegistry } from './http/route.js';
import { registerDashboardRoutes } from './routes/dashboard.js';
import { registerEndpointRoutes } from './routes/endpoints.js';
import { registerJobRoutes } from './routes/jobs.js';
import type { ApiDeps } from './routes/deps.js';
import { registerRunRoutes } from './routes/runs.js';
import { registerSchedulingRoutes } from './routes/scheduling.js';
import { registerSigningKeyRoutes } from './routes/signing-keys.js';
import { registerSystemRoutes } from './routes/system.js';

export function createApp(deps: ApiDeps): { app: Express; routes: RouteRegistry } {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.KAIROS_TRUST_PROXY);
  app.set('json spaces', 0);
  app.use(requestContext(deps.logger));
  // Parse JSON whatever the declared type says is JSON-ish; a non-JSON body leaves req.body undefined.
  app.use(express.json({ limit: LIMITS.requestBodyMaxBytes, type: ['application/json', 'application/*+json'] }));
  app.use(authenticationMiddleware([deps.apiKeys]));

  const router = express.Router();
  const routes = new RouteRegistry(router);
  registerSystemRoutes(routes, deps);
  registerJobRoutes(routes, deps);
  registerEndpointRoutes(routes, deps);
  registerSchedulingRoutes(routes, deps);
  registerRunRoutes(routes, deps);
  registerDashboardRoutes(routes, deps);
  registerSigningKeyRoutes(routes, deps);
  registerDocsRoutes(router, routes, deps);
  app.use(router);

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return { app, routes };
}
