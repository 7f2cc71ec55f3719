import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The architecture's rules, enforced here (each proven by test/lint-rules.test.ts):
 * - services never import each other, and nothing in packages/ imports a service;
 * - packages/core is pure policy: no process, no clock (`now` is a parameter), no I/O module;
 * - a service reads the environment only in its config module (services/<name>/src/config.ts);
 * - api route handlers use the tenant-scoped `@kairos/db`; `@kairos/db/system` only in SYSTEM_DB_ROUTES.
 * Test harnesses in test/ may start services in-process (they compose them, as scripts/start.mjs
 * does); tests under services/<name>/ reach other services only through those harnesses.
 */
const ROOT = dirname(fileURLToPath(import.meta.url));
/** Every folder under services/ is a service (a new one is covered without editing this file). */
const SERVICES = readdirSync(join(ROOT, 'services'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** The service a repository path (services/<name>/…) belongs to, or null. */
function serviceOf(path) {
  const match = /^services\/([^/]+)(\/|$)/.exec(path);
  return match && SERVICES.includes(match[1]) ? match[1] : null;
}

/**
 * Imports are resolved (relative paths from the importing file; `@kairos/<service>` by name). A
 * custom rule because no-restricted-imports matches the import text, not the path it resolves to:
 * `../../api/…` is another service from services/mcp/test/, but services/web's own api/ folder from a
 * file two folders below services/web/src/.
 */
const serviceBoundaries = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      crossService: 'services/{{from}} imports services/{{to}}: services talk through queues and the database.',
      packageImportsService: 'packages/ imports services/{{to}}: nothing imports a service.',
    },
  },
  create(context) {
    const repoPath = (absolute) => relative(ROOT, absolute).split(sep).join('/');
    const from = repoPath(context.filename);
    const fromService = serviceOf(from);
    if (!fromService && !from.startsWith('packages/')) return {};
    const check = (node) => {
      const source = node.source?.type === 'Literal' ? node.source.value : null;
      if (typeof source !== 'string') return;
      const named = /^@kairos\/([^/]+)/.exec(source);
      const to = named
        ? serviceOf(`services/${named[1]}`)
        : source.startsWith('.')
          ? serviceOf(repoPath(resolve(dirname(context.filename), source)))
          : null;
      if (!to || to === fromService) return;
      context.report({
        node: node.source,
        messageId: fromService ? 'crossService' : 'packageImportsService',
        data: { from: fromService, to },
      });
    };
    return {
      ImportDeclaration: check,
      ExportAllDeclaration: check,
      ExportNamedDeclaration: check,
      ImportExpression: check,
    };
  },
};

/** Modules that reach outside the process (files, network, processes, databases, queues). */
const IO_MODULES = [
  'fs',
  'fs/*',
  'net',
  'http',
  'https',
  'http2',
  'dgram',
  'dns',
  'dns/*',
  'tls',
  'child_process',
  'worker_threads',
  'cluster',
  'process',
  'readline',
  'node:*',
  '!node:crypto',
  '!node:util',
  '!node:assert',
  'pg',
  'pg-*',
  'ioredis',
  'bullmq',
  'got',
  'undici',
  'express',
  'winston',
  'prom-client',
  '@prisma/*',
  '@anthropic-ai/*',
  '@kairos/*',
];

/** `process.env` imported by name: a service reads the environment only in its config module. */
const ENV_IMPORTS = ['process', 'node:process'].map((name) => ({
  name,
  importNames: ['env'],
  message: 'A service reads the environment only through its config schema (services/<name>/src/config.ts).',
}));

/** The api routes allowed to import `@kairos/db/system` (operator admin, sign-in, device flow). */
const SYSTEM_DB_ROUTES = [
  'services/api/src/routes/admin.ts',
  'services/api/src/routes/auth.ts',
  'services/api/src/routes/devices.ts',
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'packages/db/src/generated/**',
      'packages/client/src/schema.d.ts',
      'artifacts/**',
      'coverage/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
        globalThis: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['services/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: globals.browser },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    plugins: { kairos: { rules: { 'service-boundaries': serviceBoundaries } } },
    rules: { 'kairos/service-boundaries': 'error' },
  },
  {
    files: ['packages/core/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: IO_MODULES,
              message: 'packages/core is pure policy: no I/O (the caller does it and passes the data in).',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'packages/core is pure policy: pass configuration in as a parameter.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'globalThis', property: 'process', message: 'packages/core is pure policy: no process.' },
        { object: 'Date', property: 'now', message: 'packages/core is pure policy: `now` is a parameter.' },
        { object: 'performance', property: 'now', message: 'packages/core is pure policy: `now` is a parameter.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'packages/core is pure policy: `now` is a parameter (new Date() reads the clock).',
        },
        {
          selector: "CallExpression[callee.name='Date']",
          message: 'packages/core is pure policy: `now` is a parameter (Date() reads the clock).',
        },
      ],
    },
  },
  {
    files: ['services/*/src/**/*.{ts,tsx}'],
    ignores: ['services/*/src/config.ts', '**/*.test.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'A service reads the environment only through its config schema (services/<name>/src/config.ts).',
        },
      ],
      'no-restricted-imports': ['error', { paths: ENV_IMPORTS }],
    },
  },
  {
    // Route handlers act for one account: system-wide data functions only where a route must look
    // across accounts (operator admin, sign-in and device authorisation before an account is known).
    files: ['services/api/src/routes/**/*.ts'],
    ignores: SYSTEM_DB_ROUTES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...ENV_IMPORTS,
            {
              name: '@kairos/db/system',
              message:
                "A route handler uses the tenant-scoped @kairos/db (the caller's accountId); @kairos/db/system only in the routes eslint.config.js lists.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
