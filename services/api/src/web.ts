/**
 * Serves the web UI (services/web, a static Vite bundle) from the api's own origin, so the browser
 * talks to /api with its session cookie and no CORS. Hashed assets are cached for a year; every
 * other GET whose Accept names text/html and is not an API, probe or admin path gets index.html (client-side
 * routes such as /jobs/:id or /device?user_code=… load the app, which routes itself).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';

/** services/web/dist, seen from services/api/src or services/api/dist (both two levels below services/). */
export const BUNDLED_WEB_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

export const SERVER_PATHS = /^\/(api|admin|healthz|readyz|metrics)(\/|$)/;
/** Every GET path: what is not a file or a server path is a client-side route of the UI. */
export const CLIENT_ROUTES = /.*/;

/** The UI's router, or null when there is no built UI to serve (KAIROS_WEB_DIR empty or not built). */
export function createWebRouter(configuredDir: string | undefined): Router | null {
  const dir = configuredDir ?? BUNDLED_WEB_DIR;
  if (!dir || !existsSync(join(dir, 'index.html'))) return null;
  const router = express.Router();
  router.use('/assets', express.static(join(dir, 'assets'), { immutable: true, maxAge: '365d', fallthrough: false }));
  router.use(express.static(dir, { index: false, maxAge: 0 }));
  router.get(CLIENT_ROUTES, (req, res, next) => {
    if (SERVER_PATHS.test(req.path) || !req.headers.accept?.includes('text/html')) return next();
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(join(dir, 'index.html'));
  });
  return router;
}
