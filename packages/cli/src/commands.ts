/**
 * The user commands, each answering its exit status: configuration as code (plan, apply, export) and
 * the everyday reads (jobs, endpoints, runs) and test runs. Jobs are named by key or id, endpoints
 * by `job-key/endpoint-key` or id.
 */
import { writeFile } from 'node:fs/promises';
import { KairosApiError, listAll, unwrap, type KairosClient, type Schemas } from '@kairos/client';
import { parseDocument } from 'yaml';
import { describePlan, describeRun, describeSchedule, table, type Io } from './output.js';

export const EXIT = { ok: 0, refused: 1, changes: 2, usage: 64 } as const;

export class UsageError extends Error {}

export interface CommandContext {
  api: KairosClient;
  io: Io;
  json: boolean;
  /** Reads a file, `-` being standard input. */
  read(path: string): Promise<string>;
  /** Asks a yes/no question; null when no one can answer (standard input is not a terminal). */
  confirm(question: string): Promise<boolean | null>;
  sleep(ms: number): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A document file: JSON when it says so by name or content, else YAML (line numbers in its errors). */
export async function readDocument(ctx: CommandContext, file: string): Promise<Schemas['ConfigDocument']> {
  const text = await ctx.read(file);
  const parsed = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const [error] = parsed.errors;
  if (error) {
    throw new KairosApiError('VALIDATION_ERROR', `${file} is not valid YAML or JSON: ${error.message}`, null);
  }
  return parsed.toJS() as Schemas['ConfigDocument'];
}

export async function plan(ctx: CommandContext, file: string, prune: boolean): Promise<number> {
  const document = await readDocument(ctx, file);
  const planned = await unwrap(
    ctx.api.POST('/api/config/plan', { params: { query: { prune: prune ? 'true' : 'false' } }, body: document }),
  );
  ctx.io.out(ctx.json ? JSON.stringify(planned) : describePlan(planned));
  return planned.changes.length === 0 ? EXIT.ok : EXIT.changes;
}

export async function apply(ctx: CommandContext, file: string, prune: boolean, yes: boolean): Promise<number> {
  const document = await readDocument(ctx, file);
  const query = { prune: prune ? ('true' as const) : ('false' as const) };
  if (!yes) {
    const planned = await unwrap(ctx.api.POST('/api/config/plan', { params: { query }, body: document }));
    if (planned.changes.length === 0) {
      ctx.io.out(ctx.json ? JSON.stringify({ ...planned, applied: false }) : describePlan(planned));
      return EXIT.ok;
    }
    if (!ctx.json) ctx.io.out(describePlan(planned));
    const answer = await ctx.confirm(`Apply these ${planned.changes.length} changes?`);
    if (answer === null) throw new UsageError('apply asks before changing anything: pass --yes when no one can answer');
    if (!answer) {
      ctx.io.err('Nothing applied.');
      return EXIT.refused;
    }
  }
  const applied = await unwrap(ctx.api.POST('/api/config/apply', { params: { query }, body: document }));
  if (ctx.json) ctx.io.out(JSON.stringify(applied));
  else if (!applied.applied) ctx.io.out(describePlan(applied));
  else ctx.io.out(`Applied ${applied.changes.length} changes; ${applied.unchanged} unchanged.`);
  return EXIT.ok;
}

export async function exportDocument(ctx: CommandContext, format: 'yaml' | 'json', output?: string): Promise<number> {
  const response = await ctx.api.request(`/api/config/export?format=${format}`);
  const text = await response.text();
  if (!response.ok) throw toError(response.status, text);
  const document = format === 'json' ? `${JSON.stringify(JSON.parse(text), null, 2)}\n` : text;
  if (output) await writeFile(output, document);
  else ctx.io.out(document.trimEnd());
  return EXIT.ok;
}

function toError(status: number, text: string): KairosApiError {
  try {
    const { error } = JSON.parse(text) as { error: { code: KairosApiError['code']; message: string } };
    return new KairosApiError(error.code, error.message, status);
  } catch {
    return new KairosApiError('HTTP_ERROR', `the API answered HTTP ${status}`, status);
  }
}

async function findJob(ctx: CommandContext, job: string): Promise<Schemas['Job']> {
  if (UUID.test(job)) return unwrap(ctx.api.GET('/api/jobs/{jobId}', { params: { path: { jobId: job } } }));
  const [found] = await unwrap(ctx.api.GET('/api/jobs', { params: { query: { key: job, limit: 1 } } }));
  if (!found) throw new KairosApiError('NOT_FOUND', `no job with key "${job}"`, 404);
  return found;
}

/** `job-key/endpoint-key` or an endpoint id. */
export async function findEndpoint(ctx: CommandContext, endpoint: string): Promise<Schemas['Endpoint']> {
  if (UUID.test(endpoint)) {
    return unwrap(ctx.api.GET('/api/endpoints/{endpointId}', { params: { path: { endpointId: endpoint } } }));
  }
  const [jobKey, key, ...rest] = endpoint.split('/');
  if (!jobKey || !key || rest.length > 0) throw new UsageError(`name an endpoint as job-key/endpoint-key or by id`);
  const job = await findJob(ctx, jobKey);
  const [found] = await unwrap(
    ctx.api.GET('/api/jobs/{jobId}/endpoints', { params: { path: { jobId: job.id }, query: { key, limit: 1 } } }),
  );
  if (!found) throw new KairosApiError('NOT_FOUND', `no endpoint with key "${key}" in job "${jobKey}"`, 404);
  return found;
}

export async function listJobs(ctx: CommandContext, status?: 'active' | 'paused' | 'archived'): Promise<number> {
  const jobs = await listAll((paging) =>
    ctx.api.GET('/api/jobs', { params: { query: { ...paging, ...(status ? { status } : {}) } } }),
  );
  if (ctx.json) ctx.io.out(JSON.stringify(jobs));
  else {
    const rows = jobs.map((job) => [job.key ?? '-', job.name, job.status, String(job.endpointCount), job.id]);
    ctx.io.out(table(['KEY', 'NAME', 'STATUS', 'ENDPOINTS', 'ID'], rows));
  }
  return EXIT.ok;
}

export async function listEndpoints(ctx: CommandContext, job?: string): Promise<number> {
  const jobs = job
    ? [await findJob(ctx, job)]
    : await listAll((paging) => ctx.api.GET('/api/jobs', { params: { query: paging } }));
  const rows: { job: Schemas['Job']; endpoint: Schemas['Endpoint'] }[] = [];
  for (const each of jobs) {
    const endpoints = await listAll((paging) =>
      ctx.api.GET('/api/jobs/{jobId}/endpoints', { params: { path: { jobId: each.id }, query: paging } }),
    );
    rows.push(...endpoints.map((endpoint) => ({ job: each, endpoint })));
  }
  if (ctx.json) ctx.io.out(JSON.stringify(rows.map(({ endpoint }) => endpoint)));
  else {
    const cells = rows.map(({ job: owner, endpoint }) => [
      `${owner.key ?? owner.id}/${endpoint.key ?? '-'}`,
      endpoint.name,
      describeSchedule(endpoint),
      endpoint.status,
      endpoint.nextRunAt ?? '-',
      endpoint.id,
    ]);
    ctx.io.out(table(['ENDPOINT', 'NAME', 'SCHEDULE', 'STATUS', 'NEXT RUN', 'ID'], cells));
  }
  return EXIT.ok;
}

/**
 * The latest runs, oldest first, then each new one as it is recorded (polling every intervalMs)
 * until interrupted, or `rounds` polls (tests). `--json`: one run a line.
 */
export async function tailRuns(
  ctx: CommandContext,
  target: string,
  options: { limit: number; follow: boolean; intervalMs: number; rounds?: number },
): Promise<number> {
  const endpoint = await findEndpoint(ctx, target);
  const seen = new Set<string>();
  const poll = async (limit: number) => {
    const runs = await unwrap(
      ctx.api.GET('/api/endpoints/{endpointId}/runs', {
        params: { path: { endpointId: endpoint.id }, query: { limit } },
      }),
    );
    for (const run of runs.reverse()) {
      if (seen.has(run.id)) continue;
      seen.add(run.id);
      ctx.io.out(ctx.json ? JSON.stringify(run) : describeRun(run));
    }
  };
  await poll(options.limit);
  for (let round = 0; options.follow && (options.rounds === undefined || round < options.rounds); round += 1) {
    await ctx.sleep(options.intervalMs);
    await poll(100);
  }
  return EXIT.ok;
}

/** A test run now: exit 0 when it succeeded, 2 when the call failed. */
export async function testEndpoint(ctx: CommandContext, target: string): Promise<number> {
  const endpoint = await findEndpoint(ctx, target);
  const result = await unwrap(
    ctx.api.POST('/api/endpoints/{endpointId}/test', { params: { path: { endpointId: endpoint.id } } }),
  );
  if (ctx.json) ctx.io.out(JSON.stringify(result));
  else {
    ctx.io.out(
      `Test run ${result.runId} ${result.status}` +
        (result.statusCode === null ? '' : `, HTTP ${result.statusCode}`) +
        `, ${result.durationMs} ms` +
        (result.errorMessage ? `: ${result.errorMessage}` : ''),
    );
  }
  return result.status === 'success' ? EXIT.ok : EXIT.changes;
}
