/**
 * The `kairos` CLI as users run it (`pnpm kairos`: a spawned process) against a real api on
 * 127.0.0.1: plan's exit codes (0 no change, 2 changes), apply with and without --yes, an invalid
 * file (1, the document path named), export → plan with no change, lists, runs tail, usage (64),
 * the operator commands under their own heading, and `kairos test` making a real call through a real
 * executor to a target on 127.0.0.1 (0 on success, 2 on a failed call, 1 for an unknown endpoint).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newId } from '@kairos/core';
import { stringify } from 'yaml';
import { createApiHarness, startHarnessApi, type ApiHarness, type TestAccount } from '../../../test/api.js';
import { startExecutor, type Executor } from '../../../test/engine.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
let harness: ApiHarness;
let running: Awaited<ReturnType<typeof startHarnessApi>>;
let account: TestAccount;
let dir: string;

beforeAll(async () => {
  harness = await createApiHarness();
  running = await startHarnessApi(harness);
  account = await harness.createAccount();
  dir = await mkdtemp(join(tmpdir(), 'kairos-cli-'));
});
afterAll(async () => {
  await running.close();
  await harness.close();
  await rm(dir, { recursive: true, force: true });
});

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function kairos(args: string[], env: Record<string, string> = {}, stdin = ''): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', join(root, 'scripts/kairos.ts'), ...args],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          KAIROS_URL: running.url,
          KAIROS_API_KEY: account.apiKey,
          ...env,
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

const document = (interval: number) => ({
  apiVersion: 'kairos/v1',
  jobs: [
    {
      key: 'orders',
      name: 'Orders',
      endpoints: [
        { key: 'check', name: 'Check', url: 'https://example.com/check', method: 'GET', baselineIntervalMs: interval },
      ],
    },
  ],
});

async function file(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

describe('kairos plan / apply / export', () => {
  it('exits 2 while something would change, 0 once nothing would, and asks before applying', async () => {
    const path = await file('kairos.yaml', stringify(document(60_000)));
    const planned = await kairos(['plan', '-f', path]);
    expect(planned).toMatchObject({ code: 2 });
    expect(planned.stdout).toContain('+ job orders');
    expect(planned.stdout).toContain('+ endpoint orders/check');
    expect(planned.stdout).toContain('Plan: 2 to create, 0 to update, 0 to delete; 0 unchanged.');

    // No terminal to ask and no --yes: a usage error, nothing applied.
    const refused = await kairos(['apply', '-f', path]);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('--yes');
    expect(await harness.db.prisma.job.count({ where: { accountId: account.accountId } })).toBe(0);

    const applied = await kairos(['apply', '-f', path, '--yes']);
    expect(applied).toMatchObject({ code: 0 });
    expect(applied.stdout).toContain('Applied 2 changes');
    const again = await kairos(['plan', '-f', path, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ changes: [], unchanged: 2, prune: false });

    const changed = await kairos(['plan', '-f', '-'], {}, JSON.stringify(document(120_000)));
    expect(changed.code).toBe(2);
    expect(changed.stdout).toContain('baselineIntervalMs: 60000 → 120000');
  });

  it('exits 1 naming the document path when the file is invalid, 64 on usage errors', async () => {
    const invalid = await kairos(['plan', '-f', await file('bad.yaml', stringify(document(10)))]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('VALIDATION_ERROR: jobs[0].endpoints[0].baselineIntervalMs');
    const json = await kairos(['plan', '--json', '-f', await file('bad.json', JSON.stringify(document(10)))]);
    expect(JSON.parse(json.stdout).error.details.field).toBe('jobs[0].endpoints[0].baselineIntervalMs');

    expect((await kairos(['plan'])).code).toBe(64);
    expect((await kairos(['frobnicate'])).code).toBe(64);
    expect((await kairos(['plan', '-f', 'x', '--bogus'])).code).toBe(64);
    const anonymous = await kairos(['jobs', 'list'], { KAIROS_API_KEY: '', XDG_CONFIG_HOME: dir });
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toContain('kairos login');
  });

  it('exports a document that plans no change, and lists jobs, endpoints and runs', async () => {
    const exported = await kairos(['export', '-o', join(dir, 'export.yaml')]);
    expect(exported.code).toBe(0);
    const plan = await kairos(['plan', '-f', join(dir, 'export.yaml')]);
    expect(plan).toMatchObject({ code: 0 });
    expect(plan.stdout).toContain('No changes');

    const jobs = await kairos(['jobs', 'list']);
    expect(jobs.stdout).toMatch(/^KEY\s+NAME\s+STATUS\s+ENDPOINTS\s+ID\norders\s+Orders\s+active\s+1/);
    const endpoints = JSON.parse((await kairos(['endpoints', 'list', '--job', 'orders', '--json'])).stdout);
    expect(endpoints).toMatchObject([{ key: 'check', baselineIntervalMs: expect.any(Number) }]);

    const now = new Date();
    await harness.db.prisma.run.create({
      data: {
        id: newId(),
        accountId: account.accountId,
        endpointId: endpoints[0].id,
        source: 'baseline-interval',
        status: 'success',
        scheduledAt: now,
        startedAt: now,
        completedAt: now,
        durationMs: 42,
        statusCode: 200,
      },
    });
    const tail = await kairos(['runs', 'tail', 'orders/check', '--no-follow']);
    expect(tail.code).toBe(0);
    expect(tail.stdout).toMatch(/success\s+200\s+42 ms\s+baseline-interval/);
    expect((await kairos(['runs', 'tail', 'orders/nope', '--no-follow'])).code).toBe(1);
  });

  it('shows the operator commands under their own heading in --help', async () => {
    const help = await kairos(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Configuration as code');
    expect(help.stdout).toContain('Operator commands');
    expect(help.stdout.indexOf('kairos plan')).toBeLessThan(help.stdout.indexOf('kairos accounts create'));
  });
});

describe('kairos test <endpoint> against a real run', () => {
  let executor: Executor;
  let target: TestServer;
  const RUN_LINE = /^Test run ([0-9a-f-]{36}) /;

  beforeAll(async () => {
    // The target answers by path: /ok 200 {"ok":true}, /not-ok 200 {"ok":false}, anything else 503.
    target = await startTestServer((req, res) => {
      if (req.url === '/ok') res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      else if (req.url === '/not-ok') res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":false}');
      else res.writeHead(503, { 'content-type': 'text/plain' }).end('maintenance');
    });
    executor = await startExecutor(harness, {
      concurrency: 2,
      egress: { allowPrivateTargets: false, allowCidrs: ['127.0.0.0/8'] },
    });
    const api = harness.client(account.apiKey);
    const job = await api.post('/api/jobs', { name: 'Shop', key: 'shop' });
    expect(job.status).toBe(201);
    const endpoint = (key: string, path: string, fields: Record<string, unknown> = {}) =>
      api.post(`/api/jobs/${job.body.id}/endpoints`, {
        key,
        name: key,
        url: `${target.origin}${path}`,
        method: 'GET',
        baselineIntervalMs: 3_600_000,
        ...fields,
      });
    for (const created of [
      await endpoint('ok', '/ok'),
      await endpoint('down', '/down'),
      await endpoint('asserted', '/not-ok', { successWhen: { all: [{ path: '$.ok', op: 'eq', value: true }] } }),
    ]) {
      expect(created.status).toBe(201);
    }
  }, 30_000);
  afterAll(async () => {
    await executor?.close();
    await target?.close();
  });

  /** The test run the command printed, as recorded. */
  async function recordedRun(stdout: string) {
    const runId = RUN_LINE.exec(stdout)?.[1];
    expect(runId).toBeDefined();
    return harness.db.prisma.run.findUniqueOrThrow({ where: { id: runId! } });
  }

  it('exits 0 and prints the run when the call succeeds', async () => {
    const calls = target.requests.length;
    const outcome = await kairos(['test', 'shop/ok']);
    expect(outcome).toMatchObject({ code: 0, stderr: '' });
    expect(outcome.stdout).toMatch(/^Test run [0-9a-f-]{36} success, HTTP 200, \d+ ms\n$/);
    expect(target.requests.slice(calls).map((request) => request.url)).toEqual(['/ok']);
    expect(await recordedRun(outcome.stdout)).toMatchObject({ source: 'test', status: 'success', statusCode: 200 });

    const json = await kairos(['test', 'shop/ok', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'success', statusCode: 200, runId: expect.any(String) });
  }, 30_000);

  it('exits 2 when the call fails: an HTTP error, and a body that fails successWhen', async () => {
    const down = await kairos(['test', 'shop/down']);
    expect(down.code).toBe(2);
    expect(down.stdout).toMatch(/^Test run [0-9a-f-]{36} failed, HTTP 503, \d+ ms/);
    expect(await recordedRun(down.stdout)).toMatchObject({ source: 'test', status: 'failed', statusCode: 503 });

    const asserted = await kairos(['test', 'shop/asserted']);
    expect(asserted.code).toBe(2);
    expect(asserted.stdout).toMatch(/^Test run [0-9a-f-]{36} failed, HTTP 200, \d+ ms: .*\$\.ok/);
    expect(await recordedRun(asserted.stdout)).toMatchObject({ status: 'failed', errorKind: 'assertion_failed' });
  }, 30_000);

  it('exits 1 for an endpoint that does not exist, without calling anything', async () => {
    const calls = target.requests.length;
    const missing = await kairos(['test', 'shop/nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('NOT_FOUND: no endpoint with key "nope" in job "shop"');
    expect((await kairos(['test'])).code).toBe(64);
    expect(target.requests.length).toBe(calls);
  }, 30_000);
});
