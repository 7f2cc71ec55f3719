import { AppError, newId, nextJobStatus, notFound, type JobAction, type JobStatus } from '@kairos/core';
import type { Database } from './client.js';
import type { Job } from './generated/prisma/client.js';
import { Prisma } from './generated/prisma/client.js';

export type JobWithCount = Job & { endpointCount: number };

const withCount = { _count: { select: { endpoints: { where: { archivedAt: null } } } } } as const;
const flatten = ({ _count, ...job }: Job & { _count: { endpoints: number } }): JobWithCount => ({
  ...job,
  endpointCount: _count.endpoints,
});

/** A unique index refused a key (jobs per account, endpoints per job): 409 naming the field. */
export function keyTaken(error: unknown, what: 'job' | 'endpoint', key: string | null | undefined): unknown {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002' && key) {
    const scope = what === 'job' ? 'another job of the account' : 'another endpoint of the job';
    return new AppError('CONFLICT', `key "${key}" is used by ${scope}`, { field: 'key', key });
  }
  return error;
}

export async function createJob(
  db: Database,
  accountId: string,
  input: { name: string; description?: string | undefined; key?: string | undefined },
): Promise<JobWithCount> {
  const job = await db.prisma.job
    .create({
      data: {
        id: newId(),
        accountId,
        key: input.key ?? null,
        name: input.name,
        description: input.description ?? null,
      },
      include: withCount,
    })
    .catch((error: unknown) => {
      throw keyTaken(error, 'job', input.key);
    });
  return flatten(job);
}

export async function listJobs(
  db: Database,
  accountId: string,
  query: { status?: JobStatus | undefined; key?: string | undefined; limit: number; offset: number },
): Promise<{ jobs: JobWithCount[]; total: number }> {
  const where = {
    accountId,
    ...(query.status ? { status: query.status } : {}),
    ...(query.key ? { key: query.key } : {}),
  };
  const [jobs, total] = await Promise.all([
    db.prisma.job.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit,
      skip: query.offset,
      include: withCount,
    }),
    db.prisma.job.count({ where }),
  ]);
  return { jobs: jobs.map(flatten), total };
}

export async function getJob(db: Database, accountId: string, jobId: string): Promise<JobWithCount> {
  const job = await db.prisma.job.findFirst({ where: { id: jobId, accountId }, include: withCount });
  if (!job) throw notFound('job', jobId);
  return flatten(job);
}

export async function updateJob(
  db: Database,
  accountId: string,
  jobId: string,
  input: { name?: string | undefined; description?: string | null | undefined; key?: string | null | undefined },
): Promise<JobWithCount> {
  const job = await getJob(db, accountId, jobId);
  if (job.status === 'archived') throw new AppError('CONFLICT', 'archived jobs are read-only', { status: job.status });
  const updated = await db.prisma.job
    .update({
      where: { id: job.id },
      data: {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.key !== undefined ? { key: input.key } : {}),
      },
      include: withCount,
    })
    .catch((error: unknown) => {
      throw keyTaken(error, 'job', input.key);
    });
  return flatten(updated);
}

/**
 * Applies a job state transition. Archiving also archives the job's endpoints (they stop for good)
 * and frees their keys and the job's (a configuration file may name a new job with the same key).
 * Returns the job and the ids of the endpoints whose schedule the change affects.
 */
export async function transitionJob(
  db: Database,
  accountId: string,
  jobId: string,
  action: JobAction,
  now: Date,
): Promise<{ job: JobWithCount; changed: boolean; affectedEndpointIds: string[] }> {
  return db.prisma.$transaction(async (tx) => {
    const [locked] = await tx.$queryRaw<{ status: JobStatus }[]>`
      SELECT status FROM jobs WHERE id = ${jobId}::uuid AND "accountId" = ${accountId}::uuid FOR UPDATE`;
    if (!locked) throw notFound('job', jobId);
    const next = nextJobStatus(locked.status, action);
    const changed = next !== locked.status;
    let affectedEndpointIds: string[] = [];
    if (changed) {
      const endpoints = await tx.endpoint.findMany({ where: { jobId, archivedAt: null }, select: { id: true } });
      affectedEndpointIds = endpoints.map((endpoint) => endpoint.id);
      await tx.job.update({
        where: { id: jobId },
        data: {
          status: next,
          pausedAt: next === 'paused' ? now : null,
          ...(next === 'archived' ? { archivedAt: now, key: null } : {}),
        },
      });
      if (next === 'archived') {
        await tx.endpoint.updateMany({
          where: { jobId, archivedAt: null },
          data: { archivedAt: now, key: null, nextRunAt: null, scheduleVersion: { increment: 1 } },
        });
      }
    }
    const job = await tx.job.findUniqueOrThrow({ where: { id: jobId }, include: withCount });
    return { job: flatten(job), changed, affectedEndpointIds };
  });
}
