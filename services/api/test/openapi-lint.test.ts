/**
 * A standard OpenAPI client checks the document, not only our own contract checker: Redocly CLI's
 * `recommended` ruleset (pinned in the root package.json) must report no error on the document the
 * api serves at /api/doc. Warnings are allowed and listed by the test's failure output only when
 * an error appears (today: no `license` in info; /healthz, /readyz and /api/auth/providers have no
 * 4XX answer because they have none to give).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from '../src/docs/openapi.js';
import { createApiHarness, type ApiHarness } from '../../../test/api.js';

const run = promisify(execFile);
const redoclyBin = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: 'error' | 'warn'; message: string; location: { pointer: string }[] }[];
}

let harness: ApiHarness;
let dir: string;

beforeAll(async () => {
  harness = await createApiHarness();
  dir = await mkdtemp(join(tmpdir(), 'kairos-redocly-'));
});
afterAll(async () => {
  await harness.close();
  await rm(dir, { recursive: true, force: true });
});

async function lint(document: unknown): Promise<LintReport> {
  const file = join(dir, 'openapi.json');
  await writeFile(file, JSON.stringify(document, null, 2));
  // Exit status 1 when errors are found: the JSON report is on stdout either way.
  const output = await run(process.execPath, [redoclyBin, 'lint', file, '--format=json'], {
    // No telemetry and no update check: the test talks to nothing but its own file.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    timeout: 60_000,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return JSON.parse(output.stdout) as LintReport;
}

describe('OpenAPI document under Redocly CLI (recommended rules)', () => {
  it('has no error, with a relative server when KAIROS_PUBLIC_URL is unset', async () => {
    const document = (await harness.http.get('/api/doc')).body;
    expect(document.servers).toEqual([{ url: '/' }]);
    const report = await lint(document);
    const errors = report.problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 90_000);

  it('names KAIROS_PUBLIC_URL as the server when it is set', () => {
    const document = buildOpenApiDocument(harness.routes.routes, 'https://kairos.example.com');
    expect(document.servers).toEqual([{ url: 'https://kairos.example.com' }]);
  });

  it('reports an error the document could have (the lint is not silently passing)', async () => {
    const document = (await harness.http.get('/api/doc')).body;
    const [path, item] = Object.entries(document.paths as Record<string, Record<string, { operationId?: string }>>)[0]!;
    const operation = Object.values(item)[0]!;
    // Two operations with one operationId: Redocly's operation-operationId-unique error.
    document.paths[`${path}-copy`] = { get: { ...operation } };
    const report = await lint(document);
    expect(report.problems.map((problem) => problem.ruleId)).toContain('operation-operationId-unique');
    expect(report.totals.errors).toBeGreaterThan(0);
  }, 90_000);
});
