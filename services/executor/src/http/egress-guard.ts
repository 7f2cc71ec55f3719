/**
 * SSRF guard: which addresses an outbound execution may connect to.
 *
 * A hosted sender must not let a user's endpoint URL reach the service's own network: loopback,
 * RFC 1918, link-local (169.254.169.254 is the cloud metadata service), CGNAT, multicast,
 * broadcast, unspecified, reserved, and the IPv6 equivalents. Rule: an address is allowed only
 * when ipaddr.js classifies it as 'unicast'; IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as the
 * IPv4 address it carries; IPv6 "unicast" outside 2000::/3 (global unicast, RFC 4291) is refused
 * too, which covers the deprecated IPv4-compatible ::a.b.c.d form and unassigned space. Tunnelling
 * prefixes (NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo) are refused whatever they embed.
 *
 * Checked at three points, because each one alone has a hole:
 * 1. the addresses a host name resolves to, inside the connection's DNS lookup (so the address
 *    checked is the address connected to: no DNS-rebinding window), for every hop;
 * 2. IP-literal URLs, which never reach the DNS lookup (WHATWG URL has already normalised
 *    http://2130706433/, http://0x7f.1/ and bracketed IPv6 into canonical literals);
 * 3. each redirect target (the executor calls `checkUrl` from got's beforeRedirect hook).
 *
 * Self-hosters open it with `allowPrivateTargets` (everything) or `allowCidrs` (named ranges).
 */
import dns from 'node:dns';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { EgressPolicy } from './types.js';

type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
/** Address verdicts a guard keeps (a few hundred KB at most). */
const VERDICTS_KEPT = 4096;

const RANGE_LABELS: Record<string, string> = {
  loopback: 'loopback',
  private: 'private (RFC 1918)',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  uniqueLocal: 'unique-local (fc00::/7)',
  multicast: 'multicast',
  broadcast: 'broadcast',
  unspecified: 'unspecified',
  rfc6052: 'NAT64',
  '6to4': '6to4',
  teredo: 'Teredo',
};

const HOW_TO_ALLOW = 'Set KAIROS_ALLOW_PRIVATE_TARGETS=true or add the range to the egress allowlist to permit it.';

/**
 * A refused address. `message` is what the tenant reads (the run's or notification's error): an
 * address the URL names is quoted, as the tenant wrote it; for a host name it says only that the name
 * resolves to a non-public address, never which address, range or internal name (that maps the
 * service's network for a tenant). `detail` has all of it, for the operator's log.
 */
export class EgressBlockedError extends Error {
  readonly code = 'ERR_KAIROS_EGRESS_BLOCKED';

  constructor(
    readonly address: string,
    readonly range: string,
    readonly hostname: string,
  ) {
    super(
      hostname === address
        ? `Blocked request to ${address}: ${RANGE_LABELS[range] ?? range} addresses are not allowed as targets. ${HOW_TO_ALLOW}`
        : `Blocked request: the target's host name resolves to a non-public address, which is not allowed as a target. ${HOW_TO_ALLOW}`,
    );
    this.name = 'EgressBlockedError';
  }

  /** The whole refusal, for the log: `Blocked request to 10.0.0.5 (resolved from db.internal): private (RFC 1918)`. */
  get detail(): string {
    const target = this.hostname === this.address ? this.address : `${this.address} (resolved from ${this.hostname})`;
    return `Blocked request to ${target}: ${RANGE_LABELS[this.range] ?? this.range}`;
  }
}

/** The ipaddr.js range name of an address, with the stricter IPv6 rules above; 'unicast' is public. */
export function classifyAddress(address: IpAddress): string {
  if (address.kind() === 'ipv4') return address.range();
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range();
  const range = v6.range();
  return range === 'unicast' && !v6.match(GLOBAL_UNICAST_V6) ? 'reserved' : range;
}

/** Strips the brackets WHATWG URL keeps around IPv6 hosts. */
function urlHostAddress(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

export interface EgressGuard {
  /** The refusal for an address, or null when it may be connected to. */
  checkAddress(address: string, hostname: string): EgressBlockedError | null;
  /** The refusal for an IP-literal URL; host names pass here and are checked when resolved. */
  checkUrl(url: URL): EgressBlockedError | null;
  /** A `dns.lookup` replacement that fails with EgressBlockedError if any resolved address is refused. */
  lookup: LookupFunction;
}

/** Throws on an invalid CIDR in the policy: that is a configuration error, found at startup. */
export function createEgressGuard(policy: EgressPolicy): EgressGuard {
  const allowedRanges = policy.allowCidrs.map((cidr) => {
    try {
      return ipaddr.parseCIDR(cidr.trim());
    } catch {
      throw new Error(`Invalid CIDR in the egress allowlist: "${cidr}" (expected e.g. 10.0.0.0/8 or fd00::/8)`);
    }
  });

  const isAllowlisted = (address: IpAddress): boolean => {
    const comparable =
      address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
        ? (address as ipaddr.IPv6).toIPv4Address()
        : address;
    return allowedRanges.some(
      ([network, bits]) => comparable.kind() === network.kind() && comparable.match(network, bits),
    );
  };

  /** The range that refuses `address` (null: allowed), from ipaddr.js and the allowlist. */
  const refusedRange = (address: string): string | null => {
    let parsed: IpAddress;
    try {
      parsed = ipaddr.parse(address);
    } catch {
      return 'unparseable';
    }
    const range = classifyAddress(parsed);
    return range === 'unicast' || isAllowlisted(parsed) ? null : range;
  };
  // Verdicts by address: the policy is fixed for the guard's life, so an address's verdict never
  // changes. Every request to an IP-literal URL is checked (point 2), and parsing and classifying it
  // each time was 0.8 % of the executor's busy time at saturation (`node --cpu-prof`). Bounded: a
  // full map is emptied (targets are few; a sweep of many addresses only costs parsing again).
  const verdicts = new Map<string, string | null>();
  const checkAddress = (address: string, hostname: string): EgressBlockedError | null => {
    if (policy.allowPrivateTargets) return null;
    let range = verdicts.get(address);
    if (range === undefined) {
      range = refusedRange(address);
      if (verdicts.size >= VERDICTS_KEPT) verdicts.clear();
      verdicts.set(address, range);
    }
    return range === null ? null : new EgressBlockedError(address, range, hostname);
  };

  const checkUrl = (url: URL): EgressBlockedError | null => {
    const host = urlHostAddress(url);
    return net.isIP(host) === 0 ? null : checkAddress(host, host);
  };

  // Node calls this with `all: true` when it races IPv4/IPv6 (autoSelectFamily, on by default in
  // Node 20) and without it otherwise; both callback shapes are honoured. A name is refused when
  // any of its addresses is: the connection may use any of them.
  const lookup: LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '');
        return;
      }
      for (const { address } of addresses) {
        const refusal = checkAddress(address, hostname);
        if (refusal) {
          callback(refusal, '');
          return;
        }
      }
      const first = addresses[0];
      if (options.all) callback(null, addresses);
      else if (first) callback(null, first.address, first.family);
      else callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
    });
  };

  return { checkAddress, checkUrl, lookup };
}
