/**
 * The architecture's lint rules (eslint.config.js) fail on a deliberate violation: each snippet is
 * linted as if it stood at a representative path, and the rule that guards it must fire; compliant
 * snippets at the same paths pass. This is the proof `pnpm lint` enforces the rules, not a hope.
 */
import { ESLint } from 'eslint';
import { ROOT } from '../scripts/check-pointers.mjs';

const eslint = new ESLint({ cwd: ROOT });

/** The rule ids ESLint reports for `code` at `filePath` (relative to the repository root). */
async function rulesFired(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}/${filePath}` });
  return [...new Set(result!.messages.map((message) => message.ruleId ?? message.message))].sort();
}

const BOUNDARY = 'kairos/service-boundaries';

describe('services never import each other; nothing imports a service from packages/', () => {
  test.each([
    [
      'services/api/src/routes/runs.ts',
      "import { Executor } from '../../../executor/src/queue-workers.js';\nexport default Executor;",
    ],
    ['services/scheduler/src/reconcile.ts', "export { Executor } from '@kairos/executor';"],
    [
      'services/mcp/test/http.test.ts',
      "import { loadApiConfig } from '../../api/src/config.js';\nexport default loadApiConfig;",
    ],
    ['services/planner/src/main.ts', "const m = await import('../../scheduler/src/due-queue.js');\nexport default m;"],
    [
      'packages/db/src/runs.ts',
      "import { createApp } from '../../../services/api/src/app.js';\nexport default createApp;",
    ],
    ['packages/queue/src/index.ts', "export * from '@kairos/planner';"],
  ])('%s: importing another service fails (%s)', async (filePath, code) => {
    expect(await rulesFired(filePath, code)).toEqual([BOUNDARY]);
  });

  test.each([
    ['services/web/src/pages/x.tsx', "import { api } from '../api/client.js';\nexport default api;"],
    [
      'services/executor/test/x.test.ts',
      "import { Executor } from '../src/queue-workers.js';\nexport default Executor;",
    ],
    [
      'test/engine.ts',
      "import { Executor } from '../services/executor/src/queue-workers.js';\nexport default Executor;",
    ],
    ['services/api/src/app.ts', "import { recordRun } from '@kairos/db';\nexport default recordRun;"],
  ])('%s: an import inside its own service, of a package, or by a harness passes', async (filePath, code) => {
    expect(await rulesFired(filePath, code)).toEqual([]);
  });
});

describe('packages/core is pure policy: no process, no clock, no I/O', () => {
  const at = 'packages/core/src/schedule/next-run.ts';
  test.each([
    ['process', 'export const level = process.env.LOG_LEVEL;', 'no-restricted-globals'],
    ['globalThis.process', 'export const argv = globalThis.process.argv;', 'no-restricted-properties'],
    ['Date.now()', 'export const nowMs = () => Date.now();', 'no-restricted-properties'],
    ['new Date()', 'export const now = () => new Date();', 'no-restricted-syntax'],
    ['Date()', 'export const today = () => Date();', 'no-restricted-syntax'],
    ['node:fs', "import { readFileSync } from 'node:fs';\nexport default readFileSync;", 'no-restricted-imports'],
    ['node:http', "import http from 'node:http';\nexport default http;", 'no-restricted-imports'],
    ['child_process', "import { spawn } from 'child_process';\nexport default spawn;", 'no-restricted-imports'],
    ['pg', "import pg from 'pg';\nexport default pg;", 'no-restricted-imports'],
    ['ioredis', "import { Redis } from 'ioredis';\nexport default Redis;", 'no-restricted-imports'],
    ['bullmq', "import { Queue } from 'bullmq';\nexport default Queue;", 'no-restricted-imports'],
    ['got', "import got from 'got';\nexport default got;", 'no-restricted-imports'],
    [
      '@prisma/client',
      "import { PrismaClient } from '@prisma/client';\nexport default PrismaClient;",
      'no-restricted-imports',
    ],
    ['@kairos/db', "import { recordRun } from '@kairos/db';\nexport default recordRun;", 'no-restricted-imports'],
  ])('%s fails', async (_what, code, rule) => {
    expect(await rulesFired(at, code)).toEqual([rule]);
  });

  test('a clock passed in, a parsed date and node:crypto pass', async () => {
    const code = [
      "import { createHash } from 'node:crypto';",
      'export const later = (now: Date, ms: number) => new Date(now.getTime() + ms);',
      "export const epoch = new Date('1970-01-01T00:00:00Z');",
      "export const digest = (s: string) => createHash('sha256').update(s).digest('hex');",
    ].join('\n');
    expect(await rulesFired(at, code)).toEqual([]);
  });

  test('tests beside the policy may build their own dates', async () => {
    expect(await rulesFired('packages/core/src/tiers.test.ts', 'export const now = new Date();')).toEqual([]);
  });
});

describe('a service reads the environment only through its config schema', () => {
  test.each([
    ['services/executor/src/main.ts', "export const level = process.env.LOG_LEVEL ?? 'info';"],
    ['services/api/src/cli/kairos.ts', 'const { env } = process;\nexport default env.DATABASE_URL;'],
    ['services/scheduler/src/retention.ts', "import { env } from 'node:process';\nexport default env.X;"],
  ])('%s: reading the environment fails', async (filePath, code) => {
    const fired = await rulesFired(filePath, code);
    expect(fired.length).toBe(1);
    expect(['no-restricted-properties', 'no-restricted-imports']).toContain(fired[0]);
  });

  test('the config module may read it', async () => {
    const code = 'export const load = (env: NodeJS.ProcessEnv = process.env) => env.LOG_LEVEL;';
    expect(await rulesFired('services/executor/src/config.ts', code)).toEqual([]);
  });
});

describe('api route handlers use the tenant-scoped @kairos/db; @kairos/db/system only where listed', () => {
  const system = "import { loadExecutionTargets } from '@kairos/db/system';\nexport default loadExecutionTargets;";

  test.each(['services/api/src/routes/runs.ts', 'services/api/src/routes/endpoints/list.ts'])(
    '%s: importing @kairos/db/system fails',
    async (filePath) => {
      expect(await rulesFired(filePath, system)).toEqual(['no-restricted-imports']);
    },
  );

  test('the environment rule still holds in route handlers', async () => {
    const code = "import { env } from 'node:process';\nexport default env.X;";
    expect(await rulesFired('services/api/src/routes/runs.ts', code)).toEqual(['no-restricted-imports']);
  });

  test.each([
    ['services/api/src/routes/admin.ts', system],
    ['services/api/src/auth/authenticate.ts', system],
    ['services/api/src/routes/runs.ts', "import { listRuns } from '@kairos/db';\nexport default listRuns;"],
  ])('%s: an allowed import passes', async (filePath, code) => {
    expect(await rulesFired(filePath, code)).toEqual([]);
  });
});
