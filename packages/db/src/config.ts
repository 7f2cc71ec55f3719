/**
 * Configuration as code (core/config): an account's stored configuration, and a planned set of
 * operations carried out in one transaction, all or nothing, audit events included.
 *
 * One apply at a time per account (a transaction-scoped advisory lock): the state is read, planned
 * and written under it, so two applies of the same document make its changes once.
 */
import { NOTIFICATION_LIMITS, type ConfigOperation, type ConfigState, type NotificationPayload } from '@kairos/core';
import { AppError, newId } from '@kairos/core';
import type { Database } from './client.js';
import type { AuditActorType } from './audit.js';
import { CLEARED_INTERVAL_HINT, configData, endpointConfig } from './endpoints.js';
import type { Prisma } from './generated/prisma/client.js';
import { type PrismaClient } from './generated/prisma/client.js';
import { keyTaken } from './jobs.js';
import { notificationRow } from './notifications.js';

type Client = PrismaClient | Prisma.TransactionClient;

/** Jobs that are not archived with their endpoints that are not archived, oldest first; and the channels. */
export async function loadConfigState(
  client: Client | Database,
  accountId: string,
  masterKey?: Buffer,
): Promise<ConfigState> {
  const prisma = 'prisma' in client ? client.prisma : client;
  const [jobs, channels, secrets] = await Promise.all([
    prisma.job.findMany({
      where: { accountId, status: { not: 'archived' } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      include: { endpoints: { where: { archivedAt: null }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
    }),
    prisma.notificationChannel.findMany({ where: { accountId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    prisma.secret.findMany({ where: { accountId }, select: { name: true }, orderBy: { name: 'asc' } }),
  ]);
  return {
    jobs: jobs.map((job) => ({
      id: job.id,
      key: job.key,
      name: job.name,
      description: job.description,
      endpoints: job.endpoints.map((endpoint) => ({ id: endpoint.id, config: endpointConfig(endpoint, masterKey) })),
    })),
    channels: channels.map((channel) => ({
      id: channel.id,
      name: channel.name,
      type: channel.type,
      url: channel.url,
      recipients: channel.recipients,
      events: channel.events,
    })),
    secretNames: secrets.map((secret) => secret.name),
  };
}

/** An email channel's recipients as the api decided them (verified users confirmed; mails for the others). */
export interface ChannelRecipients {
  confirmedRecipients: string[];
  confirmations: NotificationPayload[];
}

export interface ConfigAuditEvent {
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
}

export interface ApplyContext {
  accountId: string;
  now: Date;
  actor: { type: AuditActorType; id: string | null };
  /** Email channels' recipients, by the index of their operation. */
  recipients: Map<number, ChannelRecipients>;
  /** Seals sensitive header values (packages/core/src/signing/sealed-headers.ts); without it they are stored plain. */
  masterKey?: Buffer;
}

export interface AppliedConfig {
  /** Endpoints whose schedule inputs changed (marked dirty here; publish them after the commit). */
  endpointIds: string[];
  /** Confirmation notifications raised (to enqueue after the commit). */
  notificationIds: string[];
  /** The ids of created resources, by the index of their operation. */
  createdIds: Map<number, string>;
}

/**
 * Runs `fn` in one transaction holding the account's configuration lock: everything `fn` writes is
 * committed together or not at all.
 */
export function withConfigTransaction<T>(
  db: Database,
  accountId: string,
  fn: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  return db.prisma.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('kairos-config'), hashtext(${accountId}))`;
      return fn(tx);
    },
    // A document of 10,000 endpoints writes as many rows; the default 5 s is for single requests.
    { timeout: 120_000, maxWait: 30_000 },
  );
}

/** Carries out planned operations in the caller's transaction, with their audit events. */
export async function applyConfigOperations(
  tx: Prisma.TransactionClient,
  operations: ConfigOperation[],
  audit: ConfigAuditEvent[],
  context: ApplyContext,
): Promise<AppliedConfig> {
  const { accountId, now } = context;
  const applied: AppliedConfig = { endpointIds: [], notificationIds: [], createdIds: new Map() };
  const archived = { archivedAt: now, key: null, nextRunAt: null, scheduleVersion: { increment: 1 } } as const;
  for (const [index, operation] of operations.entries()) {
    switch (operation.op) {
      case 'createJob':
        await tx.job
          .create({ data: { id: operation.id, accountId, ...operation.data } })
          .catch((error: unknown) => Promise.reject(keyTaken(error, 'job', operation.data.key)));
        applied.createdIds.set(index, operation.id);
        break;
      case 'updateJob':
        await tx.job
          .update({ where: { id: operation.id }, data: operation.data })
          .catch((error: unknown) => Promise.reject(keyTaken(error, 'job', operation.data.key)));
        break;
      case 'archiveJob':
        await tx.job.update({
          where: { id: operation.id },
          data: { status: 'archived', archivedAt: now, pausedAt: null, key: null },
        });
        await tx.endpoint.updateMany({ where: { jobId: operation.id, archivedAt: null }, data: archived });
        applied.endpointIds.push(...operation.endpointIds);
        break;
      case 'createEndpoint':
        await tx.endpoint
          .create({
            data: {
              id: operation.id,
              accountId,
              jobId: operation.jobId,
              ...configData(operation.config, context.masterKey),
              scheduleDirtyAt: now,
            },
          })
          .catch((error: unknown) => Promise.reject(keyTaken(error, 'endpoint', operation.config.key)));
        applied.createdIds.set(index, operation.id);
        applied.endpointIds.push(operation.id);
        break;
      case 'updateEndpoint': {
        // As a PATCH does: a cron baseline ends any interval hint; new rules end a rule's interval.
        const onCron = operation.config.baselineCron !== null;
        await tx.endpoint
          .update({
            where: { id: operation.id },
            data: {
              ...configData(operation.config, context.masterKey),
              ...(onCron ? CLEARED_INTERVAL_HINT : {}),
              scheduleDirtyAt: now,
            },
          })
          .catch((error: unknown) => Promise.reject(keyTaken(error, 'endpoint', operation.config.key)));
        if (JSON.stringify(operation.config.rules) !== JSON.stringify(operation.stored.rules)) {
          await tx.endpoint.updateMany({
            where: { id: operation.id, hintIntervalOrigin: 'rule' },
            data: CLEARED_INTERVAL_HINT,
          });
        }
        applied.endpointIds.push(operation.id);
        break;
      }
      case 'archiveEndpoint':
        await tx.endpoint.updateMany({ where: { id: operation.id, archivedAt: null }, data: archived });
        applied.endpointIds.push(operation.id);
        break;
      case 'createChannel':
      case 'updateChannel': {
        const { data } = operation;
        const { id } = operation;
        const recipients = context.recipients.get(index);
        const row = {
          name: data.name,
          type: data.type,
          url: data.url,
          recipients: data.recipients,
          confirmedRecipients: recipients?.confirmedRecipients ?? [],
          events: data.events,
        };
        if (operation.op === 'createChannel') {
          await tx.notificationChannel.create({ data: { id, accountId, ...row } });
          applied.createdIds.set(index, id);
        } else {
          await tx.notificationChannel.update({ where: { id }, data: row });
        }
        const confirmations = (recipients?.confirmations ?? []).map((payload) =>
          notificationRow({ accountId, endpointId: null, payload }, id),
        );
        if (confirmations.length > 0) await tx.notification.createMany({ data: confirmations });
        applied.notificationIds.push(...confirmations.map((row) => row.id));
        break;
      }
      case 'deleteChannel':
        await tx.notificationChannel.delete({ where: { id: operation.id } });
        break;
    }
  }
  const channels = await tx.notificationChannel.count({ where: { accountId } });
  if (channels > NOTIFICATION_LIMITS.channelsMax) {
    throw new AppError('CONFLICT', `an account has at most ${NOTIFICATION_LIMITS.channelsMax} notification channels`, {
      limit: NOTIFICATION_LIMITS.channelsMax,
    });
  }
  await tx.auditEvent.createMany({
    data: audit.map((event) => ({
      id: newId(),
      accountId,
      actorType: context.actor.type,
      actorId: context.actor.id,
      action: event.action,
      targetType: event.targetType,
      targetId: event.targetId,
      details: event.details as Prisma.InputJsonObject,
      createdAt: now,
    })),
  });
  return applied;
}
