/**
 * Minimal server-rendered pages for the browser steps of sign-in and device verification (the web
 * UI replaces the device page with its own; the JSON routes behind it stay). No scripts, no
 * external assets; every interpolated value is escaped.
 */
import type { Request } from 'express';
import type { ApiConfig } from '../config.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * `value` without its trailing slashes. A loop, not `/\/+$/`: that pattern backtracks quadratically on
 * a run of slashes (a Host header of 16,000 slashes cost seconds per request).
 */
export function withoutTrailingSlashes(value: string): string {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 0x2f) end -= 1;
  return value.slice(0, end);
}

export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** The api's public base URL (KAIROS_PUBLIC_URL, else what this request was addressed to), no trailing slash. */
export function publicBaseUrl(config: ApiConfig, req: Request): string {
  return withoutTrailingSlashes(config.KAIROS_PUBLIC_URL ?? `${req.protocol}://${req.get('host')}`);
}

export function renderPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · Kairos</title>
<style>
body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2328}
input{font-size:1.4rem;letter-spacing:.2rem;text-transform:uppercase;padding:.4rem;width:12rem}
button,a.button{font-size:1rem;padding:.5rem 1rem;margin:.5rem .5rem 0 0;cursor:pointer}
.muted{color:#59636e}
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>
`;
}
