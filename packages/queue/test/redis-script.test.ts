/**
 * RedisScript sends a script by its SHA1 and falls back to EVAL once when Redis has not cached it:
 * after that first call the script is cached there. BatchScript runs one script for a batch of items,
 * one reply (or error) per item.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createRedisConnection } from '../src/connection.js';
import { BatchScript, RedisScript } from '../src/redis-script.js';
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

describe('BatchScript', () => {
  const script = new BatchScript(
    { counter: 1 },
    { by: 1 },
    (k, a) => `return redis.call('incrby', KEYS[${k} + 1], ARGV[${a} + 1])`,
  );
  const tag = `{kairos-test-batch-${randomBytes(4).toString('hex')}}`;
  afterAll(() => redis.del(`${tag}:a`, `${tag}:b`, `${tag}:hash`));

  it('runs the body once per item and answers one reply per item, in order', async () => {
    const replies = await script.run(redis, [
      { keys: { counter: `${tag}:a` }, args: { by: 2 } },
      { keys: { counter: `${tag}:b` }, args: { by: 5 } },
      { keys: { counter: `${tag}:a` }, args: { by: 3 } },
    ]);
    expect(replies).toEqual([2, 5, 5]);
  });

  it('answers an error for an item Redis refuses and still runs the others', async () => {
    await redis.hset(`${tag}:hash`, 'not', 'a counter');
    const replies = await script.run(redis, [
      { keys: { counter: `${tag}:a` }, args: { by: 1 } },
      { keys: { counter: `${tag}:hash` }, args: { by: 1 } },
      { keys: { counter: `${tag}:b` }, args: { by: 1 } },
    ]);
    expect(replies[0]).toBe(6);
    expect(replies[1]).toBeInstanceOf(Error);
    expect((replies[1] as Error).message).toMatch(/WRONGTYPE/);
    expect(replies[2]).toBe(6);
  });

  it('answers 0 for an item whose body returns nothing, and nothing for no items', async () => {
    const silent = new BatchScript(
      { key: 1 },
      { value: 1 },
      (k, a) => `redis.call('set', KEYS[${k} + 1], ARGV[${a} + 1])`,
    );
    expect(await silent.run(redis, [{ keys: { key: `${tag}:a` }, args: { value: '1' } }])).toEqual([0]);
    expect(await silent.run(redis, [])).toEqual([]);
  });
});
