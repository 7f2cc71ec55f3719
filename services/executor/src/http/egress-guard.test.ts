import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { EgressBlockedError, classifyAddress, createEgressGuard } from './egress-guard.js';

describe('classifyAddress', () => {
  it.each([
    ['93.184.215.14', 'unicast'],
    ['8.8.8.8', 'unicast'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['0.0.0.0', 'unspecified'],
    ['192.0.2.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['2606:4700:4700::1111', 'unicast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', 'unicast'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['64:ff9b::808:808', 'rfc6052'],
    ['2002:a00:1::1', '6to4'],
    ['2001:0::1', 'teredo'],
    ['::7f00:1', 'reserved'],
    ['4000::1', 'reserved'],
  ])('%s is %s', (address, range) => {
    expect(classifyAddress(ipaddr.parse(address))).toBe(range);
  });
});

describe('createEgressGuard', () => {
  const defaultGuard = createEgressGuard({ allowPrivateTargets: false, allowCidrs: [] });

  it('refuses anything but public unicast by default: the tenant reads the way to allow it, the log the address', () => {
    const refusal = defaultGuard.checkAddress('10.0.0.5', 'db.internal');
    expect(refusal).toBeInstanceOf(EgressBlockedError);
    // A host name's address and range are the service's network: not in the tenant's message.
    expect(refusal?.message).toBe(
      "Blocked request: the target's host name resolves to a non-public address, which is not allowed as a target. " +
        'Set KAIROS_ALLOW_PRIVATE_TARGETS=true or add the range to the egress allowlist to permit it.',
    );
    expect(refusal?.detail).toBe('Blocked request to 10.0.0.5 (resolved from db.internal): private (RFC 1918)');
    // An address the URL names is the tenant's own: named.
    expect(defaultGuard.checkAddress('10.0.0.5', '10.0.0.5')?.message).toBe(
      'Blocked request to 10.0.0.5: private (RFC 1918) addresses are not allowed as targets. ' +
        'Set KAIROS_ALLOW_PRIVATE_TARGETS=true or add the range to the egress allowlist to permit it.',
    );
    expect(defaultGuard.checkAddress('8.8.8.8', 'dns.google')).toBeNull();
  });

  it('permits allowlisted ranges only, including their IPv4-mapped forms', () => {
    const guard = createEgressGuard({ allowPrivateTargets: false, allowCidrs: ['10.1.0.0/16', ' fd00::/8 '] });
    expect(guard.checkAddress('10.1.200.3', 'x')).toBeNull();
    expect(guard.checkAddress('::ffff:10.1.0.1', 'x')).toBeNull();
    expect(guard.checkAddress('fd00::5', 'x')).toBeNull();
    expect(guard.checkAddress('10.2.0.1', 'x')).toBeInstanceOf(EgressBlockedError);
    expect(guard.checkAddress('127.0.0.1', 'x')).toBeInstanceOf(EgressBlockedError);
  });

  it('gives an address the same verdict every time, each refusal naming the host it was asked for', () => {
    const guard = createEgressGuard({ allowPrivateTargets: false, allowCidrs: ['10.1.0.0/16'] });
    for (let round = 0; round < 2; round += 1) {
      expect(guard.checkAddress('10.1.0.9', 'allowed.internal')).toBeNull();
      expect(guard.checkAddress('8.8.8.8', 'dns.google')).toBeNull();
      expect(guard.checkAddress('not-an-address', 'x')?.range).toBe('unparseable');
    }
    const first = guard.checkAddress('10.0.0.5', 'a.internal');
    const second = guard.checkAddress('10.0.0.5', 'b.internal');
    expect(first?.detail).toContain('resolved from a.internal');
    expect(second?.detail).toContain('resolved from b.internal');
    expect(second?.range).toBe('private');
  });

  it('permits everything when private targets are allowed', () => {
    const guard = createEgressGuard({ allowPrivateTargets: true, allowCidrs: [] });
    expect(guard.checkAddress('169.254.169.254', 'x')).toBeNull();
  });

  it.each(['not-a-cidr', '10.0.0.0/33', '10.0.0.0'])('rejects the allowlist entry %j', (cidr) => {
    expect(() => createEgressGuard({ allowPrivateTargets: false, allowCidrs: [cidr] })).toThrow(/Invalid CIDR/);
  });

  it.each([
    ['http://127.0.0.1/', true],
    ['http://2130706433/', true],
    ['http://0177.0.0.1/', true],
    ['http://[::1]:8080/', true],
    ['http://[::ffff:169.254.169.254]/', true],
    ['http://93.184.215.14/', false],
    ['http://localhost/', false], // a name: checked when resolved
  ])('checkUrl(%s) refuses: %s', (url, refused) => {
    expect(defaultGuard.checkUrl(new URL(url)) !== null).toBe(refused);
  });

  describe('lookup', () => {
    const lookupAll = (guard: ReturnType<typeof createEgressGuard>, host: string) =>
      new Promise<{ error: Error | null; addresses: LookupAddress[] }>((resolve) =>
        guard.lookup(host, { all: true }, (error, addresses) =>
          resolve({ error, addresses: Array.isArray(addresses) ? addresses : [] }),
        ),
      );

    it('fails a name that resolves to a refused address', async () => {
      const { error } = await lookupAll(defaultGuard, 'localhost');
      expect(error).toBeInstanceOf(EgressBlockedError);
      expect((error as EgressBlockedError).detail).toContain('resolved from localhost');
    });

    it('returns all addresses, or the first one, when allowed', async () => {
      const guard = createEgressGuard({ allowPrivateTargets: false, allowCidrs: ['127.0.0.0/8', '::1/128'] });
      const { error, addresses } = await lookupAll(guard, 'localhost');
      expect(error).toBeNull();
      expect(addresses.length).toBeGreaterThan(0);
      const single = await new Promise<unknown[]>((resolve) =>
        guard.lookup('localhost', { family: 4 }, (lookupError, address, family) =>
          resolve([lookupError, address, family]),
        ),
      );
      expect(single).toEqual([null, '127.0.0.1', 4]);
    });

    it('passes DNS failures through', async () => {
      const { error } = await lookupAll(defaultGuard, 'kairos-test.invalid');
      expect((error as NodeJS.ErrnoException | null)?.code).toMatch(/ENOTFOUND|EAI_AGAIN/);
    });
  });
});
