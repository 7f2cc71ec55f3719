#!/usr/bin/env node
/**
 * `node scripts/check-links.mjs` (run by `pnpm check` and `pnpm test`, and by test/links.test.ts):
 * every relative link of the repository's Markdown (README.md, docs/, the other tracked .md files)
 * resolves: its file or folder exists, and a `#fragment` names a heading of the file it points at
 * (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens, -1, -2 for repeats). Links
 * to other sites, absolute paths (`/api/doc`, served by the api) and links inside code are not checked.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, repositoryFiles } from './check-pointers.mjs';

/** GitHub's anchor for a heading's text. */
export function slugOf(heading) {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\- _]/gu, '')
    .replace(/ /g, '-');
}

/** The text with code blocks (and, unless `keepInline`, inline code) blanked, line numbers kept. */
function withoutCode(text, keepInline = false) {
  let fence = null;
  return text
    .split('\n')
    .map((line) => {
      const opening = /^\s*(`{3,}|~{3,})/.exec(line);
      if (fence) {
        if (opening && opening[1].startsWith(fence)) fence = null;
        return '';
      }
      if (opening) {
        fence = opening[1];
        return '';
      }
      return keepInline ? line : line.replace(/(`+)[^`]*?\1/g, (code) => ' '.repeat(code.length));
    })
    .join('\n');
}

/** The anchors a Markdown text's headings make. */
export function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  for (const line of withoutCode(text, true).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = slugOf(heading[1]);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const match of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1]);
  return anchors;
}

/** The links of a Markdown text: { target, line }. */
export function linksIn(text) {
  const links = [];
  withoutCode(text)
    .split('\n')
    .forEach((line, index) => {
      for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        links.push({ target: match[1], line: index + 1 });
      }
      const reference = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
      if (reference) links.push({ target: reference[1], line: index + 1 });
    });
  return links;
}

const external = (target) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/') || target.startsWith('//');

/** Every link of `files` (repository-relative .md paths) that does not resolve, as "file:line: target (why)". */
export function findBrokenLinks(root, files) {
  const problems = [];
  const anchorCache = new Map();
  const anchorsAt = (path) => {
    if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(readFileSync(join(root, path), 'utf8')));
    return anchorCache.get(path);
  };
  for (const file of files.filter((path) => path.endsWith('.md'))) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const { target, line } of linksIn(text)) {
      if (external(target)) continue;
      const [rawPath, fragment] = target.split('#', 2);
      const path = rawPath ? normalize(join(dirname(file), decodeURI(rawPath))) : file;
      if (path.startsWith('..')) {
        problems.push(`${file}:${line}: ${target} (outside the repository)`);
        continue;
      }
      if (!existsSync(join(root, path))) {
        problems.push(`${file}:${line}: ${target} (no such file)`);
        continue;
      }
      if (fragment === undefined || fragment === '') continue;
      if (!path.endsWith('.md') || statSync(join(root, path)).isDirectory()) continue;
      if (!anchorsAt(path).has(decodeURIComponent(fragment))) {
        problems.push(`${file}:${line}: ${target} (no heading #${fragment} in ${path})`);
      }
    }
  }
  return problems;
}

/** The Markdown files the check reads: every tracked or new .md file. */
export function markdownFiles(root = ROOT) {
  return repositoryFiles(root).filter((file) => file.endsWith('.md'));
}

function main() {
  const files = markdownFiles();
  const problems = findBrokenLinks(ROOT, files);
  if (problems.length === 0) {
    console.log(`check-links: every relative link resolves (${files.length} Markdown files)`);
    return;
  }
  console.error(`check-links: ${problems.length} link(s) do not resolve:`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
