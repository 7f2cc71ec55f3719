/**
 * Security headers on every answer of the api (helmet), pages, JSON, docs, probes and errors alike:
 *   Content-Security-Policy  frame-ancestors 'none' (no site may frame a Kairos page: the device
 *                            approval cannot be clickjacked), scripts from this origin only (no inline
 *                            script but the reference page's, by nonce), no plugins, no foreign
 *                            <base> or form targets; inline styles stay allowed (the server-rendered
 *                            pages, Bull Board and the reference page use them);
 *   X-Frame-Options: DENY    the same for browsers without frame-ancestors;
 *   X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer, Cross-Origin-Opener-Policy and
 *   Cross-Origin-Resource-Policy: same-origin (helmet's defaults);
 *   Strict-Transport-Security: max-age=31536000  only when KAIROS_PUBLIC_URL is https (sent over
 *                            plain http it is ignored; without subdomains, which may not be Kairos's).
 */
import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

const ONE_YEAR_SEC = 365 * 24 * 60 * 60;

const DIRECTIVES = {
  defaultSrc: ["'self'"],
  baseUri: ["'self'"],
  fontSrc: ["'self'", 'data:'],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  imgSrc: ["'self'", 'data:'],
  objectSrc: ["'none'"],
  scriptSrc: ["'self'"],
  scriptSrcAttr: ["'none'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
};

export function securityHeaders(publicUrl: string | undefined): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: DIRECTIVES },
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: publicUrl?.startsWith('https:')
      ? { maxAge: ONE_YEAR_SEC, includeSubDomains: false }
      : false,
  });
}

/**
 * For a page with one inline script (the API reference): a fresh nonce in `res.locals.cspNonce`
 * and the same policy allowing that nonce, replacing the policy securityHeaders set.
 */
export function allowScriptByNonce(): RequestHandler[] {
  const policy = helmet.contentSecurityPolicy({
    useDefaults: false,
    directives: {
      ...DIRECTIVES,
      scriptSrc: ["'self'", (_req, res) => `'nonce-${(res as Response).locals.cspNonce as string}'`],
    },
  });
  const nonce = (_req: Request, res: Response, next: NextFunction) => {
    res.locals.cspNonce = randomBytes(18).toString('base64url');
    next();
  };
  return [nonce, policy];
}
