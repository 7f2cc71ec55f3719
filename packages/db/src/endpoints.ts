import {
  AppError,
  decryptSecret,
  newId,
  notFound,
  openHeaders,
  sealHeaders,
  type EndpointConfig,
  type ResponseRule,
} from '@kairos/core';
import type { Database } from './client.js';
import type { Endpoint, Job } from './generated/prisma/client.js';
import { Prisma } from './generated/prisma/client.js';
import { keyTaken } from './jobs.js';

export type EndpointWithJob = Endpoint & { job: Pick<Job, 'id' | 'status'> };
const withJob = { job: { select: { id: true, status: true } } } as const;

const jsonOrNull = (value: unknown) => (value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue));

/**
 * The row's columns for a configuration. With the master key, sensitive header values are stored
 * sealed (sealedHeaders, the headers keeping the mask); without it (tests, scripts) in plain headers.
 */
export function configData(config: EndpointConfig, masterKey?: Buffer) {
  const { headers, sealedHeaders } = masterKey
    ? sealHeaders(config.headers, masterKey)
    : { headers: config.headers, sealedHeaders: null };
  return {
    key: config.key,
    name: config.name,
    url: config.url,
    method: config.method,
    description: config.description,
    baselineIntervalMs: config.baselineIntervalMs,
    baselineCron: config.baselineCron,
    timezone: config.timezone,
    minIntervalMs: config.minIntervalMs,
    maxIntervalMs: config.maxIntervalMs,
    jitterMs: config.jitterMs,
    missedRuns: config.missedRuns,
    activeFrom: config.activeFrom === null ? null : new Date(config.activeFrom),
    activeUntil: config.activeUntil === null ? null : new Date(config.activeUntil),
    blackouts: jsonOrNull(config.blackouts),
    autoPauseAfterFailures: config.autoPauseAfterFailures,
    timeoutMs: config.timeoutMs,
    maxResponseSizeKb: config.maxResponseSizeKb,
    retry: jsonOrNull(config.retry),
    propagateTrace: config.propagateTrace,
    successWhen: jsonOrNull(config.successWhen),
    rules: jsonOrNull(config.rules),
    headers: jsonOrNull(headers),
    sealedHeaders,
    body: jsonOrNull(config.body),
  };
}

/**
 * The stored configuration of an endpoint, as the input validators see it: sealed header values
 * opened with the master key (a row with sealed values read without it throws).
 */
export function endpointConfig(endpoint: Endpoint, masterKey?: Buffer): EndpointConfig {
  return {
    key: endpoint.key,
    name: endpoint.name,
    url: endpoint.url,
    method: endpoint.method as EndpointConfig['method'],
    description: endpoint.description,
    baselineIntervalMs: endpoint.baselineIntervalMs,
    baselineCron: endpoint.baselineCron,
    timezone: endpoint.timezone,
    minIntervalMs: endpoint.minIntervalMs,
    maxIntervalMs: endpoint.maxIntervalMs,
    jitterMs: endpoint.jitterMs,
    missedRuns: endpoint.missedRuns as EndpointConfig['missedRuns'],
    activeFrom: endpoint.activeFrom?.toISOString() ?? null,
    activeUntil: endpoint.activeUntil?.toISOString() ?? null,
    blackouts: (endpoint.blackouts as EndpointConfig['blackouts']) ?? null,
    autoPauseAfterFailures: endpoint.autoPauseAfterFailures,
    timeoutMs: endpoint.timeoutMs,
    maxResponseSizeKb: endpoint.maxResponseSizeKb,
    retry: (endpoint.retry as EndpointConfig['retry']) ?? null,
    propagateTrace: endpoint.propagateTrace,
    successWhen: (endpoint.successWhen as EndpointConfig['successWhen']) ?? null,
    rules: (endpoint.rules as EndpointConfig['rules']) ?? null,
    headers: openHeaders(
      (endpoint.headers as Record<string, string> | null) ?? null,
      endpoint.sealedHeaders,
      (sealed) => {
        if (!masterKey)
          throw new Error(`endpoint ${endpoint.id} has sealed header values: reading them needs the master key`);
        return decryptSecret(sealed, masterKey);
      },
    ),
    body: (endpoint.body as EndpointConfig['body']) ?? null,
  };
}

export async function createEndpoint(
  db: Database,
  accountId: string,
  jobId: string,
  config: EndpointConfig,
  masterKey?: Buffer,
): Promise<EndpointWithJob> {
  const job = await db.prisma.job.findFirst({ where: { id: jobId, accountId }, select: { status: true } });
  if (!job) throw notFound('job', jobId);
  if (job.status === 'archived') {
    throw new AppError('CONFLICT', 'cannot add endpoints to an archived job', { status: job.status });
  }
  return db.prisma.endpoint
    .create({ data: { id: newId(), accountId, jobId, ...configData(config, masterKey) }, include: withJob })
    .catch((error: unknown) => {
      throw keyTaken(error, 'endpoint', config.key);
    });
}

export async function getEndpoint(
  db: Database,
  accountId: string,
  endpointId: string,
  jobId?: string,
): Promise<EndpointWithJob> {
  const endpoint = await db.prisma.endpoint.findFirst({
    where: { id: endpointId, accountId, ...(jobId ? { jobId } : {}) },
    include: withJob,
  });
  if (!endpoint) throw notFound('endpoint', endpointId);
  return endpoint;
}

export async function listEndpoints(
  db: Database,
  accountId: string,
  jobId: string,
  query: { limit: number; offset: number; includeArchived: boolean; key?: string | undefined },
): Promise<{ endpoints: EndpointWithJob[]; total: number }> {
  const job = await db.prisma.job.findFirst({ where: { id: jobId, accountId }, select: { id: true } });
  if (!job) throw notFound('job', jobId);
  const where = {
    accountId,
    jobId,
    ...(query.includeArchived ? {} : { archivedAt: null }),
    ...(query.key ? { key: query.key } : {}),
  };
  const [endpoints, total] = await Promise.all([
    db.prisma.endpoint.findMany({
      where,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: query.limit,
      skip: query.offset,
      include: withJob,
    }),
    db.prisma.endpoint.count({ where }),
  ]);
  return { endpoints, total };
}

/**
 * The job's endpoints that are not archived, with their response rules: what a rule's runEndpoint may
 * name and the chains it may join (core's checkResponseRules).
 */
export async function listJobRules(
  db: Database,
  accountId: string,
  jobId: string,
): Promise<{ id: string; rules: ResponseRule[] | null }[]> {
  const endpoints = await db.prisma.endpoint.findMany({
    where: { accountId, jobId, archivedAt: null },
    select: { id: true, rules: true },
  });
  return endpoints.map((endpoint) => ({ id: endpoint.id, rules: (endpoint.rules as ResponseRule[] | null) ?? null }));
}

/** An endpoint's interval hint removed (a PATCH to cron, replaced rules, DELETE hints). */
export const CLEARED_INTERVAL_HINT = {
  hintIntervalMs: null,
  hintIntervalExpiresAt: null,
  hintIntervalReason: null,
  hintIntervalOrigin: null,
  hintIntervalSetAt: null,
} as const;

/**
 * Stores a new configuration. `clearIntervalHint`: any interval hint goes (the endpoint is on cron
 * now); `clearRuleIntervalHint`: an interval hint a response rule set goes (the rules were replaced:
 * the next run's rules decide again).
 */
export async function updateEndpoint(
  db: Database,
  accountId: string,
  endpointId: string,
  config: EndpointConfig,
  options: { clearIntervalHint: boolean; clearRuleIntervalHint?: boolean; masterKey?: Buffer },
): Promise<EndpointWithJob> {
  const { count } = await db.prisma.endpoint
    .updateMany({
      where: { id: endpointId, accountId, archivedAt: null },
      data: { ...configData(config, options.masterKey), ...(options.clearIntervalHint ? CLEARED_INTERVAL_HINT : {}) },
    })
    .catch((error: unknown) => {
      throw keyTaken(error, 'endpoint', config.key);
    });
  if (count === 0) {
    await assertEditable(db, accountId, endpointId);
  }
  if (options.clearRuleIntervalHint) {
    await db.prisma.endpoint.updateMany({
      where: { id: endpointId, accountId, hintIntervalOrigin: 'rule' },
      data: CLEARED_INTERVAL_HINT,
    });
  }
  return getEndpoint(db, accountId, endpointId);
}

export async function archiveEndpoint(
  db: Database,
  accountId: string,
  endpointId: string,
  jobId: string,
  now: Date,
): Promise<{ endpoint: EndpointWithJob; changed: boolean }> {
  // Archiving frees the key: a configuration file may name a new endpoint with it.
  const { count } = await db.prisma.endpoint.updateMany({
    where: { id: endpointId, accountId, jobId, archivedAt: null },
    data: { archivedAt: now, key: null, nextRunAt: null, scheduleVersion: { increment: 1 } },
  });
  return { endpoint: await getEndpoint(db, accountId, endpointId, jobId), changed: count > 0 };
}

async function assertEditable(db: Database, accountId: string, endpointId: string): Promise<void> {
  const endpoint = await getEndpoint(db, accountId, endpointId);
  if (endpoint.archivedAt) {
    throw new AppError('CONFLICT', 'archived endpoints are read-only', {
      archivedAt: endpoint.archivedAt.toISOString(),
    });
  }
}
