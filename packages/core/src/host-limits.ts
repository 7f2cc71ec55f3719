/**
 * Host budgets: an account's `hostLimits`, one budget per target host shared by every endpoint of the
 * account that calls it, across every executor (services/executor/src/host-budget.ts enforces them).
 * A limit names a lowercase host name, optionally with a port: without a port it holds for the host
 * on every port, with one for that port alone (the scheme's default port when the URL names none).
 * Pure: no I/O.
 */
import { z } from 'zod';

/** At most this many host limits per account. */
export const HOST_LIMITS_MAX = 100;
/** The highest maxPerSecond (calls are spaced 1/maxPerSecond apart: a millisecond at this rate). */
export const HOST_MAX_PER_SECOND = 1000;
/** The highest maxConcurrent. */
export const HOST_MAX_CONCURRENT = 10_000;

export interface HostLimit {
  host: string;
  maxPerSecond?: number | undefined;
  maxConcurrent?: number | undefined;
}

/** `host` split into its name and port (null: not a lowercase host name, with an optional port). */
export function parseLimitHost(host: string): { hostname: string; port: number | null } | null {
  if (host.length === 0 || host.length > 260) return null;
  const colon = host.lastIndexOf(':');
  const hostname = colon === -1 ? host : host.slice(0, colon);
  let port: number | null = null;
  if (colon !== -1) {
    const digits = host.slice(colon + 1);
    if (digits.length === 0 || digits.length > 5 || ![...digits].every((c) => c >= '0' && c <= '9')) return null;
    port = Number(digits);
    if (port < 1 || port > 65_535) return null;
  }
  if (hostname.length === 0 || hostname !== hostname.toLowerCase()) return null;
  let parsed: URL;
  try {
    parsed = new URL(`http://${hostname}/`);
  } catch {
    return null;
  }
  // A name URL would change (percent signs, a path, user info, a bracketed address) is refused as written.
  if (parsed.hostname !== hostname || hostname.startsWith('[')) return null;
  return { hostname, port };
}

export const hostLimitInput = z
  .strictObject({
    host: z
      .string()
      .refine((host) => parseLimitHost(host) !== null, {
        message: 'a lowercase host name, optionally with a port (api.example.com or api.example.com:8443)',
      })
      .meta({
        description:
          'Lowercase host name, optionally with a port. Without a port the budget holds for the host on every port',
        example: 'api.example.com',
      }),
    maxPerSecond: z
      .number()
      .positive()
      .max(HOST_MAX_PER_SECOND)
      .optional()
      .meta({ description: `Calls per second to the host, spaced evenly (at most ${HOST_MAX_PER_SECOND})` }),
    maxConcurrent: z
      .number()
      .int()
      .min(1)
      .max(HOST_MAX_CONCURRENT)
      .optional()
      .meta({ description: 'Calls in flight to the host at once' }),
  })
  .refine((limit) => limit.maxPerSecond !== undefined || limit.maxConcurrent !== undefined, {
    message: 'set maxPerSecond and/or maxConcurrent',
  })
  .meta({ id: 'HostLimit', description: 'A budget for one target host, shared by every endpoint of the account' });

export const hostLimitsSetting = z
  .array(hostLimitInput)
  .max(HOST_LIMITS_MAX)
  .refine((limits) => new Set(limits.map((limit) => limit.host)).size === limits.length, {
    message: 'each host at most once',
  })
  .nullable()
  .meta({
    description:
      'Host budgets: every endpoint of the account calling a listed host shares its budget, across executors. A run ' +
      'held by it starts late (waitedForHostMs on the run), never dropped; a 429 with Retry-After from the host ' +
      `holds the whole host. At most ${HOST_LIMITS_MAX}; null or [] = none`,
  });

/** A limit as the executor matches it: the host split once. */
export interface CompiledHostLimit {
  host: string;
  hostname: string;
  port: number | null;
  maxPerSecond: number | null;
  maxConcurrent: number | null;
}

/** The stored setting made ready for matching; null when it holds no limit (or is not a list). */
export function compileHostLimits(stored: unknown): CompiledHostLimit[] | null {
  if (!Array.isArray(stored) || stored.length === 0) return null;
  const compiled: CompiledHostLimit[] = [];
  for (const item of stored as HostLimit[]) {
    const parsed = typeof item?.host === 'string' ? parseLimitHost(item.host) : null;
    if (!parsed) continue;
    const maxPerSecond = typeof item.maxPerSecond === 'number' && item.maxPerSecond > 0 ? item.maxPerSecond : null;
    const maxConcurrent =
      typeof item.maxConcurrent === 'number' && item.maxConcurrent >= 1 ? Math.floor(item.maxConcurrent) : null;
    if (maxPerSecond === null && maxConcurrent === null) continue;
    compiled.push({ host: item.host, ...parsed, maxPerSecond, maxConcurrent });
  }
  return compiled.length === 0 ? null : compiled;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * The limit that holds for a call to `url` (null: none). A limit naming the port wins over one naming
 * the host alone.
 */
export function hostLimitFor(url: string, limits: readonly CompiledHostLimit[]): CompiledHostLimit | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const port = parsed.port === '' ? (DEFAULT_PORTS[parsed.protocol] ?? null) : Number(parsed.port);
  let anyPort: CompiledHostLimit | null = null;
  for (const limit of limits) {
    if (limit.hostname !== parsed.hostname) continue;
    if (limit.port === null) anyPort ??= limit;
    else if (limit.port === port) return limit;
  }
  return anyPort;
}
