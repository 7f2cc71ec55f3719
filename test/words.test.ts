/**
 * The words check (scripts/check-words.mjs, run by `pnpm check` and `pnpm test`): the repository
 * passes, and each refused phrasing fails, named with its line; identifiers and Kubernetes keys pass.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT, repositoryFiles } from '../scripts/check-pointers.mjs';
import { findOutsideWords, outsideWordsIn } from '../scripts/check-words.mjs';

// Built from parts, so this file does not use the words it tests.
const UPPER = ['SP', 'EC'].join('');
const spec = UPPER.toLowerCase();

test('the repository uses no outside words', () => {
  expect(findOutsideWords(ROOT, repositoryFiles())).toEqual([]);
});

test.each([
  [`// measured in ${'sess' + 'ion'} 28`, 'a work session by number'],
  [`/** the ${spec}'s shape */`, 'an outside specification'],
  [` * Outbound signing (${UPPER} "Signing keys").`, 'an outside specification'],
  [`it('refuses cron endpoints (${spec} point 6)')`, 'an outside specification'],
  [` * Job state machine (${spec}: States and transitions)`, 'an outside specification'],
  [`As ${'the ca' + 'rd'} says`, 'an outside card'],
  [`// fixed in ${'iss' + 'ue'} #12`, 'an issue number'],
])('refuses %s', (line, why) => {
  expect(outsideWordsIn(`ok\n${line}\n`)).toEqual([`2: ${why}: ${line.trim()}`]);
});

test.each([
  `for (const { ${spec} } of routes) paths[${spec}.path] = ${spec}.method;`,
  `async function run(${spec}: HttpRequestSpec, ctx: ExecutionContext) {}`,
  `  ${spec}:\n    replicas: 2`,
  `      path: /${spec}/template/${spec}/containers/0/securityContext`,
  'The session ends when the browser closes; an analysis session has steps.',
])('allows %s', (line) => {
  expect(outsideWordsIn(line)).toEqual([]);
});

describe('in a tree', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'kairos-words-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function tree(files: Record<string, string>): string[] {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, dirname(path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return Object.keys(files);
  }

  test('names the file and line; applied migrations may keep their words', () => {
    const files = tree({
      'packages/core/src/a.ts': `export const a = 1;\n// see ${'the ' + spec}\n`,
      'prisma/migrations/20260101000000_init/migration.sql': `-- ${'sess' + 'ion'} 7: drop the index\n`,
      'docs/x.md': '# X\n',
    });
    expect(findOutsideWords(root, files)).toEqual([
      `packages/core/src/a.ts:2: an outside specification: // see the ${spec}`,
    ]);
  });
});
