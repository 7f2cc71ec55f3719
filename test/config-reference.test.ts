/**
 * The configuration reference (docs/operations/configuration.md) is generated from the services'
 * configuration schemas by scripts/config-reference.ts: the committed file is current, a change to
 * a schema makes it stale, and a variable without a meaning is refused.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { REFERENCE_PATH, SECTIONS, defaultOf, renderReference } from '../scripts/config-reference.js';

test('the committed reference is what the schemas say (else run `pnpm docs:config`)', async () => {
  expect(readFileSync(REFERENCE_PATH, 'utf8')).toBe(await renderReference());
});

test('every variable of every service is listed with its default', async () => {
  const text = await renderReference();
  expect(text).toMatch(/\| `EXECUTOR_CONCURRENCY` +\| `200` +\|/);
  expect(text).toMatch(/\| `SCHEDULER_DISPATCH_LEAD_MS` +\| `300` +\|/);
  expect(text).toMatch(/\| `KAIROS_TRUST_PROXY` +\| `false` +\|/);
  expect(text).toMatch(/\| `ANTHROPIC_API_KEY` +\| — +\|/);
});

test('a changed default or meaning makes the committed file stale', async () => {
  const [first, ...rest] = SECTIONS;
  const changed = {
    ...first!,
    shape: { ...first!.shape, LOG_LEVEL: z.enum(['info', 'debug']).default('debug').describe('Changed.') },
  };
  expect(readFileSync(REFERENCE_PATH, 'utf8')).not.toBe(await renderReference([changed, ...rest]));
});

test('a variable without .describe() is refused, by name', async () => {
  const section = { title: 'x', intro: 'x', shape: { KAIROS_NEW_SETTING: z.string().default('a') } };
  await expect(renderReference([section])).rejects.toThrow('KAIROS_NEW_SETTING (x) has no .describe()');
});

test('defaults are read through transforms and preprocessing', () => {
  expect(
    defaultOf(
      z
        .string()
        .default('a,b')
        .transform((value: string) => value.split(',')),
    ),
  ).toBe('a,b');
  expect(defaultOf(z.preprocess((value: unknown) => value, z.coerce.number().default(3)))).toBe(3);
  expect(defaultOf(z.string().optional())).toBeUndefined();
});
