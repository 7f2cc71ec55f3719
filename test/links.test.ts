/**
 * The link check (scripts/check-links.mjs, run by `pnpm check` and `pnpm test`): every relative
 * link of README.md and docs/ resolves, file and heading; a broken one fails, named with its line.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../scripts/check-pointers.mjs';
import { anchorsOf, findBrokenLinks, markdownFiles, slugOf } from '../scripts/check-links.mjs';

test('every relative link of the repository resolves', () => {
  const files = markdownFiles();
  expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/guide/README.md', 'docs/operations/README.md']));
  expect(findBrokenLinks(ROOT, files)).toEqual([]);
});

test("anchors are GitHub's", () => {
  expect(slugOf('Release check: `pnpm test:images`')).toBe('release-check-pnpm-testimages');
  expect(slugOf('Glossary (one word per concept in code, API, UI and docs)')).toBe(
    'glossary-one-word-per-concept-in-code-api-ui-and-docs',
  );
  expect(slugOf('Runtime (Node.js and pnpm)')).toBe('runtime-nodejs-and-pnpm');
  expect([...anchorsOf('# A\n\n## Notes\n\n```sh\n# not a heading\n```\n\n## Notes\n')]).toEqual([
    'a',
    'notes',
    'notes-1',
  ]);
});

describe('in a tree', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'kairos-links-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function tree(files: Record<string, string>): string[] {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, dirname(path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return Object.keys(files);
  }

  test('links that resolve pass: files, folders, headings, the same file, other sites, code', () => {
    const files = tree({
      'README.md':
        '[guide](docs/guide/README.md#using-it) [ops](docs/) [top](#intro) [site](https://example.com)\n\n# Intro\n',
      'docs/guide/README.md':
        '# Using it\n\n[back](../../README.md#intro) `[not a link](nowhere.md)`\n\n```md\n[x](gone.md)\n```\n',
    });
    expect(findBrokenLinks(root, files)).toEqual([]);
  });

  test('a missing file or heading fails, named with its place', () => {
    const files = tree({
      'README.md': '# Intro\n\nSee [the guide](docs/guide.md).\n',
      'docs/a.md': '# A\n\n[gone](../README.md#outro) and [self](#b)\n',
    });
    expect(findBrokenLinks(root, files)).toEqual([
      'README.md:3: docs/guide.md (no such file)',
      'docs/a.md:3: ../README.md#outro (no heading #outro in README.md)',
      'docs/a.md:3: #b (no heading #b in docs/a.md)',
    ]);
  });
});
