import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { apiReference } from '@scalar/express-api-reference';
import express, { type Router } from 'express';
import type { RouteRegistry } from '../http/route.js';
import { allowScriptByNonce } from '../http/security-headers.js';
import type { ApiDeps } from '../routes/deps.js';
import { renderLlmsTxt } from './llms.js';
import { buildOpenApiDocument } from './openapi.js';

const require = createRequire(import.meta.url);
// Scalar's browser bundle is served from our own origin: the reference works with no internet.
// The package exports no package.json; its main entry lives in dist/, beside dist/browser/.
const scalarBrowserDir = join(dirname(require.resolve('@scalar/api-reference')), 'browser');

/** GET /api/doc (OpenAPI 3.1), /api/reference (interactive, self-hosted), /api/llms.txt (Markdown). Public. */
export function registerDocsRoutes(router: Router, routes: RouteRegistry, deps: ApiDeps): void {
  let cached: { document: ReturnType<typeof buildOpenApiDocument>; llms: string } | undefined;
  const docs = () => {
    cached ??= (() => {
      const document = buildOpenApiDocument(routes.routes, deps.config.KAIROS_PUBLIC_URL);
      return { document, llms: renderLlmsTxt(document as unknown as Record<string, unknown>) };
    })();
    return cached;
  };
  router.get('/api/doc', (_req, res) => {
    res.json(docs().document);
  });
  router.get('/api/llms.txt', (_req, res) => {
    res.type('text/markdown; charset=utf-8').send(docs().llms);
  });
  router.use('/api/reference/assets', express.static(scalarBrowserDir, { immutable: true, maxAge: '1d' }));
  // Its one inline script (the configuration) runs by a per-response nonce; fonts are the
  // bundle's own (the default ones come from Scalar's servers, which the policy does not allow).
  const reference = { url: '/api/doc', cdn: '/api/reference/assets/standalone.js', pageTitle: 'Kairos API reference' };
  const page: ReturnType<typeof apiReference> = (req, res, next) =>
    apiReference({ ...reference, withDefaultFonts: false, nonce: res.locals.cspNonce as string })(req, res, next);
  router.get('/api/reference', ...allowScriptByNonce(), page);
}
