/**
 * KAIROS_TRUST_PROXY: which peers may tell the api the client's address and protocol
 * (X-Forwarded-For, X-Forwarded-Proto), in express's own forms:
 *   false, 0 (default)  nobody: req.ip is the TCP peer;
 *   n ≥ 1               n hops: the last n X-Forwarded-For entries were written by your own proxies
 *                       (1: the ingress controller or reverse proxy in front of the api);
 *   true                the same as 1. Trusting every hop made req.ip the left-most entry, which the
 *                       client writes itself, so any client could choose its address and escape the
 *                       per-address rate limit;
 *   addresses, ranges   comma-separated IP addresses, CIDR ranges and the names loopback, linklocal,
 *                       uniquelocal: peers in them are proxies (the first address outside them is the client).
 */
import proxyAddr from 'proxy-addr';

export type TrustProxy = false | number | string[];

/** The setting as express takes it, or a message saying what is wrong. */
export function parseTrustProxy(raw: string): { value: TrustProxy } | { error: string } {
  const value = raw.trim().toLowerCase();
  if (value === '' || value === 'false' || value === '0') return { value: false };
  if (value === 'true') return { value: 1 };
  if (/^\d+$/.test(value)) return { value: Number(value) };
  const ranges = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  try {
    proxyAddr.compile(ranges);
  } catch (error) {
    return { error: `${(error as Error).message}` };
  }
  return { value: ranges };
}
