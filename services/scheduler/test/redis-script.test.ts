/**
 * RedisScript sends a script by its SHA1 and falls back to EVAL once when Redis has not cached it:
 * after that first call the script is cached there.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createRedisConnection } from '@kairos/queue';
import { RedisScript } from '../src/redis-script.js';
import { REDIS_URL } from '../../../test/env.mjs';

const redis = createRedisConnection(REDIS_URL);
afterAll(() => redis.disconnect());

it('runs a script this Redis has not cached (EVALSHA answers NOSCRIPT, then EVAL caches it)', async () => {
  // A comment unique to this run: no Redis has cached this text before.
  const lua = `-- ${randomBytes(8).toString('hex')}\nreturn redis.call("EXISTS", KEYS[1]) + tonumber(ARGV[1])`;
  const sha = createHash('sha1').update(lua).digest('hex');
  const script = new RedisScript(lua);
  expect(await redis.script('EXISTS', sha)).toEqual([0]);
  const key = `{kairos-test-script-${randomBytes(4).toString('hex')}}:k`;
  expect(await script.run(redis, [key], ['41'])).toBe(41);
  expect(await redis.script('EXISTS', sha)).toEqual([1]);
  await redis.set(key, 'x', 'PX', 10_000);
  expect(await script.run(redis, [key], ['41'])).toBe(42);
  await redis.del(key);
});

it('passes script errors through', async () => {
  const script = new RedisScript(`return redis.error_reply("KAIROS_TEST " .. ARGV[1])`);
  await expect(script.run(redis, ['{kairos-test}:none'], ['refused'])).rejects.toThrow('KAIROS_TEST refused');
});
