/**
 * Audit events from the api. Written after the change succeeded; a failed write is logged at error
 * level and does not fail the request (the change is done: answering 500 would make clients retry
 * it). Details never carry secrets.
 */
import { recordAudit, type AuditEventInput } from '@kairos/db';
import type { AuthContext } from './auth/context.js';
import type { ApiDeps } from './routes/deps.js';

export async function recordAuditEvent(deps: Pick<ApiDeps, 'db' | 'logger'>, event: AuditEventInput): Promise<void> {
  try {
    await recordAudit(deps.db, event);
  } catch (error) {
    deps.logger.error('audit event not recorded', { action: event.action, error: (error as Error).message });
  }
}

/** Records `action` on a target, done by whoever authenticated the request. */
export function audit(
  deps: Pick<ApiDeps, 'db' | 'logger'>,
  auth: AuthContext,
  action: string,
  target: { type: string; id: string } | null,
  details?: Record<string, unknown>,
): Promise<void> {
  return recordAuditEvent(deps, {
    accountId: auth.accountId,
    actorType: auth.actor.type,
    actorId: auth.actor.id,
    action,
    targetType: target?.type ?? null,
    targetId: target?.id ?? null,
    details: details ?? null,
  });
}

/**
 * The details of an update: the fields the request named, and each one's value before and after as
 * the API shows it (records mask secret header values), so the log holds no more than a reader of the
 * resource sees. A field the record does not carry under that name is listed without values.
 */
export function changeDetails(
  fields: string[],
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): { fields: string[]; before: Record<string, unknown>; after: Record<string, unknown> } {
  const shown = fields.filter((field) => field in after);
  return {
    fields,
    before: Object.fromEntries(shown.map((field) => [field, before[field] ?? null])),
    after: Object.fromEntries(shown.map((field) => [field, after[field] ?? null])),
  };
}
