#!/usr/bin/env node
/**
 * Container health probe (node:20-slim has no curl):
 *   node deploy/healthcheck.mjs <PORT_VARIABLE> <default port> [path]
 * e.g. `node deploy/healthcheck.mjs EXECUTOR_HEALTH_PORT 3002 /readyz`. Exit 0 on a 2xx answer within 3 s.
 */
/* global fetch, AbortSignal */
const [portVariable = 'PORT', defaultPort = '3000', path = '/healthz'] = process.argv.slice(2);
const port = process.env[portVariable] || defaultPort;

try {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(3000) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
