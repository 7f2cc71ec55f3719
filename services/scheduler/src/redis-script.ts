import { createHash } from 'node:crypto';
import type { RedisConnection } from '@kairos/queue';

/**
 * A Lua script sent by its SHA1 (EVALSHA): the source crosses the wire once per Redis node, when
 * the node answers NOSCRIPT (first call, a restart, SCRIPT FLUSH, a cluster failover), then EVAL
 * caches it there. On a cluster each call goes to the node owning its first key's slot.
 */
export class RedisScript {
  private readonly sha: string;

  constructor(private readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run(connection: RedisConnection, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await connection.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return connection.eval(this.lua, keys.length, ...keys, ...args);
    }
  }
}
