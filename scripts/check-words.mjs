#!/usr/bin/env node
/**
 * `node scripts/check-words.mjs` (run by `pnpm check` and `pnpm test`, and by test/words.test.ts):
 * the repository speaks of Kairos alone. Fails, naming file and line, where a tracked file refers to
 * something a reader cannot look up: a work session by number, an outside product document (its
 * name, its upper-case short name, its numbered points), an outside card, or an issue number.
 * Describe the behaviour instead; a measured choice links its decision record (docs/decisions/NNNN-*.md).
 *
 * Allowed: applied migrations (prisma/migrations/, never edited once applied) and code that names a
 * specification of its own (a route's `spec`, a Kubernetes object's `spec:`): only the phrasings
 * below count, and identifiers never match them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, repositoryFiles } from './check-pointers.mjs';

/** Each phrasing with the reason it is refused. */
export const OUTSIDE_WORDS = [
  { pattern: /\bsession\s+\d/i, why: 'a work session by number' },
  { pattern: /\bthe\s+spec\b/i, why: 'an outside specification' },
  { pattern: /\bSPEC\b/, why: 'an outside specification' },
  { pattern: /\bspec\s+(?:point|rule)s?\b/i, why: 'an outside specification' },
  { pattern: /\(spec:\s+["A-Z][a-z]+\s/i, why: 'an outside specification' },
  { pattern: /\bthe\s+card\b/i, why: 'an outside card' },
  { pattern: /\bissue\s+#\d/i, why: 'an issue number' },
];

/** Paths whose words are history by design. */
export const ALLOWED = [/^prisma\/migrations\//];

const TEXT = /\.(?:[cm]?[jt]sx?|json|md|ya?ml|prisma|sql|sh|css|html|txt|toml)$|(?:^|\/)(?:Dockerfile|Makefile)$/;

/** Lines of `text` that use outside words, as "line: why: text". */
export function outsideWordsIn(text) {
  const found = [];
  text.split('\n').forEach((line, index) => {
    for (const { pattern, why } of OUTSIDE_WORDS) {
      if (pattern.test(line)) {
        found.push(`${index + 1}: ${why}: ${line.trim().slice(0, 120)}`);
        break;
      }
    }
  });
  return found;
}

/** Every use of outside words in `files` (repository-relative), as "path:line: why: text". */
export function findOutsideWords(root, files) {
  const problems = [];
  for (const file of files) {
    if (!TEXT.test(file) || ALLOWED.some((allowed) => allowed.test(file)) || file === 'pnpm-lock.yaml') continue;
    for (const found of outsideWordsIn(readFileSync(join(root, file), 'utf8'))) problems.push(`${file}:${found}`);
  }
  return problems;
}

function main() {
  const files = repositoryFiles();
  const problems = findOutsideWords(ROOT, files);
  if (problems.length === 0) {
    console.log(`check-words: no outside words (${files.length} files)`);
    return;
  }
  console.error(`check-words: ${problems.length} line(s) speak of what a reader cannot look up:`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
