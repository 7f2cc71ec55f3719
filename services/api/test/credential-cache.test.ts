/**
 * The api's credential caches are bounded: however many distinct credentials a process sees, it keeps
 * at most CREDENTIAL_CACHE_MAX of them (least recently used out), a secret that is not found is never
 * kept, and a cached credential still expires on the authenticator's clock.
 */
import type { Database } from '@kairos/db';
import type { Request } from 'express';
import { ApiKeyAuthenticator, CREDENTIAL_CACHE_MAX } from '../src/auth/authenticate.js';

/** An ApiKeyAuthenticator whose lookups answer from memory: keys named `good-<n>` exist. */
class InMemoryKeys extends ApiKeyAuthenticator {
  lookups = 0;

  constructor(now: () => Date, maxEntries?: number) {
    super({} as Database, 10_000, now, maxEntries);
  }

  protected override async lookup(raw: string) {
    this.lookups += 1;
    if (!raw.startsWith('good-')) return null;
    return {
      context: {
        accountId: `account-${raw}`,
        userId: null,
        actor: { type: 'api_key' as const, id: raw },
        role: 'owner' as const,
        scope: 'write' as const,
      },
      account: { disabledAt: null },
      lastUsedAt: null,
    };
  }

  protected override async touch(): Promise<void> {}
}

const requestWith = (key: string) => ({ headers: { 'x-api-key': key } }) as unknown as Request;

describe('credential cache', () => {
  it('keeps at most CREDENTIAL_CACHE_MAX of 100,000 distinct valid keys', async () => {
    const keys = new InMemoryKeys(() => new Date());
    for (let i = 0; i < 100_000; i++) await keys.authenticate(requestWith(`good-${i}`));
    expect(CREDENTIAL_CACHE_MAX).toBe(10_000);
    expect(keys.cachedCount).toBe(CREDENTIAL_CACHE_MAX);
    // The most recent are the ones kept: no new lookup for them.
    const before = keys.lookups;
    await keys.authenticate(requestWith('good-99999'));
    expect(keys.lookups).toBe(before);
    await keys.authenticate(requestWith('good-0'));
    expect(keys.lookups).toBe(before + 1);
  }, 60_000);

  it('never keeps a key that is not found', async () => {
    const keys = new InMemoryKeys(() => new Date());
    for (let i = 0; i < 1000; i++)
      await expect(keys.authenticate(requestWith(`bad-${i}`))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(keys.cachedCount).toBe(0);
  });

  it('expires a cached key on its clock and forgets a revoked one at once', async () => {
    let nowMs = Date.parse('2026-11-28T12:00:00Z');
    const keys = new InMemoryKeys(() => new Date(nowMs), 5);
    await keys.authenticate(requestWith('good-a'));
    await keys.authenticate(requestWith('good-a'));
    expect(keys.lookups).toBe(1);
    nowMs += 10_001;
    await keys.authenticate(requestWith('good-a'));
    expect(keys.lookups).toBe(2);
    keys.evictKey('good-a');
    expect(keys.cachedCount).toBe(0);
  });
});
