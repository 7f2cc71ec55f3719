/**
 * due-bulk-add.ts writes BullMQ's internal job format itself (the job hash, the delayed set's score,
 * the marker, the events), read from one BullMQ release: BullMQ stays pinned to exactly that release in
 * every package of the workspace, and the one installed is it. A bump fails here first; moving the pin
 * means re-reading BullMQ's scripts and the format guard in due-bulk-add.test.ts passing on the new one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const formatSource = read('services/scheduler/src/due-bulk-add.ts');
const formatVersion = /It writes what BullMQ (\d+\.\d+\.\d+)'s/.exec(formatSource)?.[1];

const manifests = [
  'package.json',
  ...['services', 'packages'].flatMap((dir) =>
    readdirSync(join(ROOT, dir)).map((name) => `${dir}/${name}/package.json`),
  ),
].filter((path) => {
  try {
    read(path);
    return true;
  } catch {
    return false;
  }
});

it('due-bulk-add.ts names the BullMQ release whose format it writes', () => {
  expect(formatVersion).toMatch(/^\d+\.\d+\.\d+$/);
});

it('every package pins BullMQ to exactly that release', () => {
  const pins = manifests.flatMap((path) => {
    const pkg = JSON.parse(read(path)) as Record<string, Record<string, string> | undefined>;
    const pin = pkg.dependencies?.bullmq ?? pkg.devDependencies?.bullmq;
    return pin === undefined ? [] : [[path, pin] as const];
  });
  expect(pins.length).toBeGreaterThan(1);
  for (const [path, pin] of pins) expect({ path, pin }).toEqual({ path, pin: formatVersion });
});

it('the BullMQ installed for the scheduler is that release', () => {
  const require = createRequire(join(ROOT, 'services/scheduler/package.json'));
  const installed = JSON.parse(readFileSync(require.resolve('bullmq/package.json'), 'utf8')) as { version: string };
  expect(installed.version).toBe(formatVersion);
});
