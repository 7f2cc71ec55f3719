/**
 * Audit log: security-relevant and schedule-changing actions, with who did them. Append-only;
 * details never hold secrets (no raw keys or tokens, only ids and prefixes).
 */
import { newId } from '@kairos/core';
import type { Database } from './client.js';
import type { AuditEvent } from './generated/prisma/client.js';
import { Prisma } from './generated/prisma/client.js';

export const AUDIT_ACTOR_TYPES = ['user', 'api_key', 'access_token', 'planner', 'operator', 'system'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

export interface AuditEventInput {
  /** Null for events outside any account (e.g. a refused sign-in). */
  accountId: string | null;
  actorType: AuditActorType;
  /** User, API key, access token or operator user id; null for system and planner. */
  actorId?: string | null;
  /** `<resource>.<verb>`, e.g. api_key.created, endpoint.paused. */
  action: string;
  targetType?: string | null;
  targetId?: string | null;
  details?: Record<string, unknown> | null;
  at?: Date;
}

export async function recordAudit(db: Database, event: AuditEventInput): Promise<void> {
  await db.prisma.auditEvent.create({
    data: {
      id: newId(),
      accountId: event.accountId,
      actorType: event.actorType,
      actorId: event.actorId ?? null,
      action: event.action,
      targetType: event.targetType ?? null,
      targetId: event.targetId ?? null,
      details: event.details ? (event.details as Prisma.InputJsonObject) : Prisma.DbNull,
      ...(event.at ? { createdAt: event.at } : {}),
    },
  });
}

export async function listAuditEvents(
  db: Database,
  accountId: string,
  query: {
    limit: number;
    offset: number;
    action?: string | undefined;
    actorType?: string | undefined;
    actorId?: string | undefined;
    targetType?: string | undefined;
    since?: string | undefined;
    until?: string | undefined;
  },
): Promise<{ events: AuditEvent[]; total: number }> {
  const createdAt = {
    ...(query.since ? { gte: new Date(query.since) } : {}),
    ...(query.until ? { lt: new Date(query.until) } : {}),
  };
  const where = {
    accountId,
    ...(query.action ? { action: query.action } : {}),
    ...(query.actorType ? { actorType: query.actorType } : {}),
    ...(query.actorId ? { actorId: query.actorId } : {}),
    ...(query.targetType ? { targetType: query.targetType } : {}),
    ...(query.since || query.until ? { createdAt } : {}),
  };
  const [events, total] = await Promise.all([
    db.prisma.auditEvent.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit,
      skip: query.offset,
    }),
    db.prisma.auditEvent.count({ where }),
  ]);
  return { events, total };
}
