#!/usr/bin/env node
/**
 * `node scripts/check-pointers.mjs` (run by `pnpm check` and `pnpm test`): a pointer is code, so
 * keep it true. Finds the repository paths cited in Markdown files and in code comments and fails,
 * naming each one that does not resolve to a file or folder in the working tree.
 *
 * What counts as a pointer:
 * - a path under a top-level folder (`services/executor/src/run-execution.ts`, `packages/core/src/schedule`,
 *   `docs/benchmarks.md`, `test/db.ts`, brace lists like `src/{a,b}.ts` expanded); from the repository
 *   root, else from the citing file's folder;
 * - a relative path (starting with ./ or ../), from the citing file's folder;
 * - a partial path (`src/http/types.ts`): some tracked file's path ends with it; `core/tiers.ts`
 *   is a workspace package's shorthand for packages/core/src/tiers.ts;
 * - a bare file name (`group-commit.ts`): some tracked file has that name.
 * A `.js` name also resolves to its `.ts`/`.tsx` source (ESM imports name the emitted file); build
 * output (`services/web/dist`) resolves when the folder that builds it exists; a bare name that is an
 * installed package (`ipaddr.js`) is not a file pointer. Globs, placeholders (`services/<a>/**`,
 * `services/*`, `$d`) and URLs are not pointers. Code comments are read
 * with the TypeScript scanner (so strings and regexes never count); .prisma, .sql, YAML and shell
 * files by their line comments. The check is exported for test/check-pointers.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const TOP_FOLDERS = ['services', 'packages', 'docs', 'scripts', 'test', 'prisma', 'deploy', 'bench', 'notes', '.ci'];
const FILE_EXTENSIONS = ['ts', 'tsx', 'mts', 'cts', 'js', 'mjs', 'cjs', 'md', 'sql', 'prisma'];
const SCRIPT_KINDS = {
  '.ts': ts.ScriptKind.TS,
  '.mts': ts.ScriptKind.TS,
  '.cts': ts.ScriptKind.TS,
  '.tsx': ts.ScriptKind.TSX,
  '.js': ts.ScriptKind.JS,
  '.mjs': ts.ScriptKind.JS,
  '.cjs': ts.ScriptKind.JS,
  '.jsx': ts.ScriptKind.JSX,
};
/** Files whose comments start with `#` (YAML, shell, Dockerfiles) or `--` (SQL) or `//` (Prisma). */
const LINE_COMMENTS = [
  { test: (path) => /\.(ya?ml|sh)$/.test(path) || /(^|\/)Dockerfile[^/]*$/.test(path), start: '#' },
  { test: (path) => path.endsWith('.sql'), start: '--' },
  { test: (path) => path.endsWith('.prisma'), start: '//' },
];
/** Generated or vendored text: not written by us, not checked. */
// Applied migrations are history: their files are never edited (Prisma checks their checksums), so a
// path they cite may have moved since.
const SKIPPED = [
  /(^|\/)generated\//,
  /^services\/web\/src\/api\/schema\.d\.ts$/,
  /(^|\/)CHANGELOG\.md$/,
  /^prisma\/migrations\//,
];

const PATH_CHAR = String.raw`[\w.*<>…$-]`;
/** Folders the build or the tools write (ignored by git): a pointer into one names future output. */
const OUTPUT_FOLDERS = new Set(['dist', 'node_modules', 'coverage', 'artifacts', '.turbo']);
const TOP_PATH = new RegExp(
  String.raw`(?<![\w@./:-])(?:${TOP_FOLDERS.map((f) => f.replace('.', '\\.')).join('|')})/(?:${PATH_CHAR}|\{[\w.,-]*\}|/)*`,
  'g',
);
const RELATIVE_PATH = new RegExp(String.raw`(?<![\w@./:-])\.{1,2}/(?:${PATH_CHAR}|\{[\w.,-]*\}|/)+`, 'g');
const BARE_NAME = new RegExp(
  String.raw`(?<![\w@./:<-])[a-z0-9_][\w-]*(?:\.[\w-]+)*\.(?:${FILE_EXTENSIONS.join('|')})(?![\w/-])`,
  'g',
);
const PARTIAL_PATH = new RegExp(
  String.raw`(?<![\w@./:<-])(?!(?:${TOP_FOLDERS.map((f) => f.replace('.', '\\.')).join('|')})/)[\w-]+(?:/[\w.-]+)+\.(?:${FILE_EXTENSIONS.join('|')})(?![\w/-])`,
  'g',
);
const URL = /\b[a-z][\w+.-]*:\/\/\S+/gi;

const KINDS = new Map([
  [TOP_PATH, 'path'],
  [RELATIVE_PATH, 'relative'],
  [PARTIAL_PATH, 'partial'],
  [BARE_NAME, 'name'],
]);

/** The text of every comment in a source file (TypeScript/JavaScript, or line comments). */
export function commentsOf(path, text) {
  const kind = SCRIPT_KINDS[extname(path)];
  if (kind !== undefined) {
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, kind);
    const seen = new Set();
    const comments = [];
    const collect = (ranges) => {
      for (const range of ranges ?? []) {
        if (seen.has(range.pos)) continue;
        seen.add(range.pos);
        comments.push({
          text: text.slice(range.pos, range.end),
          line: source.getLineAndCharacterOfPosition(range.pos).line + 1,
        });
      }
    };
    const visit = (node) => {
      collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
      collect(ts.getTrailingCommentRanges(text, node.getEnd()));
      node.forEachChild(visit);
    };
    // Tokens are not nodes: a comment between two tokens of one node is reached through its children,
    // and the file's last comments through the end-of-file token.
    visit(source);
    collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
    return comments;
  }
  const style = LINE_COMMENTS.find((s) => s.test(path));
  if (!style) return [];
  return text.split('\n').flatMap((line, i) => {
    const at = line.indexOf(style.start);
    // `#` inside a YAML value (`a#b`) is not a comment: it must start the line or follow a blank.
    if (at < 0 || (style.start === '#' && at > 0 && !/\s/.test(line[at - 1]))) return [];
    return [{ text: line.slice(at), line: i + 1 }];
  });
}

function expandBraces(token) {
  const match = /\{([^{}]*)\}/.exec(token);
  if (!match) return [token];
  return match[1]
    .split(',')
    .flatMap((part) => expandBraces(token.slice(0, match.index) + part + token.slice(match.index + match[0].length)));
}

/** The pointers cited in a piece of text, as written (brace lists expanded). */
export function pointersIn(text) {
  const prose = text.replace(URL, ' ');
  const found = [];
  for (const pattern of [TOP_PATH, RELATIVE_PATH, PARTIAL_PATH, BARE_NAME]) {
    for (const match of prose.matchAll(pattern)) {
      const token = match[0].replace(/[.,]+$/, '');
      // Globs and placeholders describe a family of paths, not one.
      if (/[*<>…$]/.test(token)) continue;
      const kind = KINDS.get(pattern);
      for (const pointer of expandBraces(token)) {
        found.push({ kind, pointer: pointer.replace(/\/+$/, ''), index: match.index });
      }
    }
  }
  return found;
}

/** A lookup over the repository's files: does a path (file or folder) or a file name exist? */
export function createResolver(files, packages = new Set()) {
  const paths = new Set();
  const names = new Set();
  for (const file of files) {
    names.add(basename(file));
    for (let path = file; path !== '.' && path !== ''; path = dirname(path)) paths.add(path);
  }
  const alternatives = (path) =>
    path.endsWith('.js') ? [path, path.replace(/\.js$/, '.ts'), path.replace(/\.js$/, '.tsx')] : [path];
  const hasPath = (path) => {
    const segments = normalize(path).split('/');
    const output = segments.findIndex((segment) => OUTPUT_FOLDERS.has(segment));
    if (output > 0) return paths.has(segments.slice(0, output).join('/'));
    return alternatives(segments.join('/')).some((p) => paths.has(p));
  };
  return ({ kind, pointer }, citingFile) => {
    const here = dirname(citingFile);
    if (kind === 'name') return packages.has(pointer) || alternatives(pointer).some((name) => names.has(name));
    if (kind === 'relative') return hasPath(join(here, pointer));
    if (kind === 'partial') {
      // `core/tiers.ts` is the workspace package's shorthand for packages/core/src/tiers.ts.
      const [head, ...rest] = pointer.split('/');
      if (hasPath(join('packages', head, 'src', ...rest))) return true;
      return alternatives(pointer).some((p) => files.some((file) => file.endsWith(`/${p}`)));
    }
    return hasPath(pointer) || hasPath(join(here, pointer));
  };
}

/**
 * Every pointer in `files` (paths relative to `root`) that does not resolve, as
 * `file:line: pointer` lines. Markdown is read whole; code by its comments.
 */
export function findDanglingPointers(root, files) {
  const resolves = createResolver(files, installedPackages(root));
  const problems = [];
  for (const file of files) {
    if (SKIPPED.some((pattern) => pattern.test(file))) continue;
    let text;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue;
    }
    const pieces = file.endsWith('.md')
      ? text.split('\n').map((line, i) => ({ text: line, line: i + 1 }))
      : commentsOf(file, text);
    for (const piece of pieces) {
      for (const pointer of pointersIn(piece.text)) {
        if (resolves(pointer, file)) continue;
        const line = piece.line + (piece.text.slice(0, pointer.index).match(/\n/g)?.length ?? 0);
        problems.push(`${file}:${line}: ${pointer.pointer}`);
      }
    }
  }
  return problems;
}

/** Names of the packages pnpm installed (`node_modules/.pnpm/<name>@<version>`). */
function installedPackages(root) {
  try {
    return new Set(
      readdirSync(join(root, 'node_modules', '.pnpm')).map((entry) => entry.replace(/(.)@.*$/, '$1').replace('+', '/')),
    );
  } catch {
    return new Set();
  }
}

/** The working tree's files: tracked, plus new ones git does not ignore. */
export function repositoryFiles(root = ROOT) {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root });
  return [...new Set(out.toString('utf8').split('\0').filter(Boolean))].filter((file) => existsSync(join(root, file)));
}

function main() {
  const files = repositoryFiles();
  const problems = findDanglingPointers(ROOT, files);
  if (problems.length === 0) {
    console.log(`check-pointers: every cited path resolves (${files.length} files)`);
    return;
  }
  console.error(`check-pointers: ${problems.length} pointer(s) do not resolve:`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
