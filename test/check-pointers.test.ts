/**
 * The pointer check (scripts/check-pointers.mjs, run by `pnpm check` and `pnpm test`): the
 * repository passes, and a deliberate dangling pointer of each kind fails, named with its place.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT, findDanglingPointers, pointersIn, repositoryFiles } from '../scripts/check-pointers.mjs';

let root: string;

function tree(files: Record<string, string>): string[] {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, dirname(path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return Object.keys(files);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kairos-pointers-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

test('the repository has no dangling pointer', () => {
  expect(findDanglingPointers(ROOT, repositoryFiles())).toEqual([]);
});

test('pointers that resolve pass: paths, folders, brace lists, relative paths, names, .js for .ts', () => {
  const files = tree({
    'services/executor/src/admission.ts': '// Takes the lock released in ./run-recorder.js and run-recorder.ts.\n',
    'services/executor/src/run-recorder.ts':
      '/** See services/executor/src/{admission,run-recorder}.ts and packages/core. */\n',
    'packages/core/src/tiers.ts': "export const note = 'not a comment: gone.ts';\n",
    'README.md': 'Read `services/executor/src/admission.ts`, [core](packages/core/src/tiers.ts), core/tiers.ts.\n',
    'docs/ops.md': 'Back to [the readme](../README.md); build output lands in packages/core/dist.\n',
  });
  expect(findDanglingPointers(root, files)).toEqual([]);
});

test('a deliberate dangling pointer fails, named with its file and line', () => {
  const files = tree({
    'services/executor/src/run-execution.ts': [
      '/**',
      ' * The batching lives in recompute-batcher.ts (see services/scheduler/src/gone.ts).',
      ' */',
      "const url = 'https://example.invalid/services/x/not-a-pointer.ts';",
      '// Facts in notes/stack.md; helper in ./missing.js.',
      'export const x = url;',
    ].join('\n'),
    'ARCHITECTURE.md': 'Intro.\n\nThe map cites `packages/db/src/{executions,vanished}.ts` and [ops](docs/ops.md).\n',
    'packages/db/src/executions.ts': '',
  });
  expect(findDanglingPointers(root, files)).toEqual([
    'services/executor/src/run-execution.ts:2: services/scheduler/src/gone.ts',
    'services/executor/src/run-execution.ts:2: recompute-batcher.ts',
    'services/executor/src/run-execution.ts:5: notes/stack.md',
    'services/executor/src/run-execution.ts:5: ./missing.js',
    'ARCHITECTURE.md:3: packages/db/src/vanished.ts',
    'ARCHITECTURE.md:3: docs/ops.md',
  ]);
});

test('globs, placeholders and URLs are not pointers', () => {
  expect(
    pointersIn('services/<a>/** imports services/* and https://example.invalid/test/x.ts; deploy/kairos-$d'),
  ).toEqual([]);
});
