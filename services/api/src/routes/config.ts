/**
 * Configuration as code: the account's jobs, endpoints and notification channels as one document
 * (core/config), exported, planned against what is stored and applied in one transaction.
 *
 *   GET  /api/config/schema.json  the document's JSON Schema (public: editors fetch it)
 *   GET  /api/config/export       ?format=json|yaml
 *   POST /api/config/plan         the document (JSON, or YAML as application/yaml); ?prune=true
 *   POST /api/config/apply        the same; all or nothing, audit-logged, idempotent
 *
 * Plan and apply run the same checks (the document, the rules, quotas, email availability), so a
 * plan that answers 200 applies unless the account changed in between.
 */
import {
  AppError,
  CONFIG_LIMITS,
  configDocument,
  configDocumentJsonSchema,
  exportConfig,
  newId,
  planConfig,
  type ConfigChange,
  type ConfigDocument,
  type ConfigOperation,
  type ConfigPlan,
  type ConfigState,
  type TierLimits,
} from '@kairos/core';
import {
  applyConfigOperations,
  loadConfigState,
  withConfigTransaction,
  type ChannelRecipients,
  type ConfigAuditEvent,
} from '@kairos/db';
import { createNotificationQueue, type NotificationQueue } from '@kairos/queue';
import express, { type NextFunction, type Request, type Response } from 'express';
import { parseDocument, stringify } from 'yaml';
import { z } from 'zod';
import type { AuthContext } from '../auth/context.js';
import type { RouteRegistry } from '../http/route.js';
import { validationError } from '../http/validation.js';
import {
  CONFIRMATION_MAILS,
  assertEmailAvailable,
  planRecipients,
  spendAccountBucket,
} from '../notification-recipients.js';
import { assertScheduleQuota, quotaExceeded } from '../quotas.js';
import { errorResponses } from './common.js';
import type { ApiDeps } from './deps.js';

export const CONFIG_PATH = '/api/config';
const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

/**
 * Body parsers for /api/config, ahead of the api's JSON parser: a document may be larger than other
 * request bodies (CONFIG_LIMITS.documentMaxBytes) and may be YAML, read here into the same object
 * JSON gives (a YAML syntax error is 400 VALIDATION_ERROR naming the line).
 */
export function configBodyParsers() {
  const limit = CONFIG_LIMITS.documentMaxBytes;
  const readYaml = (req: Request, _res: Response, next: NextFunction) => {
    if (typeof req.body !== 'string' || !req.is(YAML_TYPES)) return next();
    // uniqueKeys: a key given twice is an error, not the last one silently winning.
    const parsed = parseDocument(req.body, { uniqueKeys: true, prettyErrors: true });
    const [error] = parsed.errors;
    if (error) {
      const [line, column] = error.linePos?.[0] ? [error.linePos[0].line, error.linePos[0].col] : [null, null];
      return next(
        new AppError('VALIDATION_ERROR', `the document is not valid YAML: ${error.message}`, { line, column }),
      );
    }
    req.body = parsed.toJS({ maxAliasCount: 100 }) ?? {};
    next();
  };
  return [
    express.json({ limit, type: ['application/json', 'application/*+json'] }),
    express.text({ limit, type: YAML_TYPES }),
    readYaml,
  ];
}

const pruneQuery = z.object({
  prune: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true')
    .meta({ description: 'Also delete what the document leaves out (within the sections it has)' }),
});

const fieldChange = z.object({ field: z.string(), before: z.unknown(), after: z.unknown() });
const configChange = z
  .object({
    action: z.enum(['create', 'update', 'delete']),
    kind: z.enum(['job', 'endpoint', 'notificationChannel']),
    address: z.string().meta({ description: 'orders (a job key), orders/check (job/endpoint keys) or a channel name' }),
    path: z.string().nullable().meta({ description: 'Where the document names it, e.g. jobs[0].endpoints[1]' }),
    id: z.string().nullable().meta({ description: 'The resource id (after apply, also of created ones)' }),
    fields: z.array(fieldChange).meta({
      description: 'update: each field that differs, before and after (sensitive header values masked)',
    }),
  })
  .meta({ id: 'ConfigChange' });

const configPlanRecord = z
  .object({
    changes: z.array(configChange),
    unchanged: z.number().int().meta({ description: 'Resources the document names that are as it says' }),
    prune: z.boolean(),
  })
  .meta({ id: 'ConfigPlan' });

const configApplyRecord = configPlanRecord
  .extend({ applied: z.boolean().meta({ description: 'false: nothing to change, nothing written' }) })
  .meta({ id: 'ConfigApplyResult' });

const exportQuery = z.object({
  format: z.enum(['json', 'yaml']).default('json').meta({ description: 'json (default) or yaml' }),
});

const DOCUMENT_HELP =
  'The body is a configuration document (apiVersion kairos/v1; JSON, or YAML with Content-Type ' +
  'application/yaml; JSON Schema at /api/config/schema.json): jobs by key with their endpoints by key (the ' +
  'endpoint input fields; rules name runEndpoint targets by key) and notification channels by name. A section ' +
  'left out is not managed. A field left out of an endpoint is its default. A header value ******** keeps the ' +
  'stored value. 400 VALIDATION_ERROR names the document path (jobs[1].endpoints[0].baselineIntervalMs) in ' +
  'details.field and every problem in details.issues; 403 QUOTA_EXCEEDED as the single routes answer it, with ' +
  'details.path.';

/** The account's limits the plan must keep (count quotas, minimum interval), each naming where. */
function assertQuotas(plan: ConfigPlan, state: ConfigState, limits: TierLimits, now: Date): void {
  let jobs = state.jobs.length;
  let endpoints = state.jobs.reduce((sum, job) => sum + job.endpoints.length, 0);
  let createsJobs = false;
  let createsEndpoints = false;
  plan.operations.forEach((operation, index) => {
    const path = plan.changes[index]!.path;
    switch (operation.op) {
      case 'createJob':
        jobs += 1;
        createsJobs = true;
        break;
      case 'archiveJob':
        jobs -= 1;
        endpoints -= operation.endpointIds.length;
        break;
      case 'archiveEndpoint':
        endpoints -= 1;
        break;
      case 'createEndpoint':
      case 'updateEndpoint':
        if (operation.op === 'createEndpoint') {
          endpoints += 1;
          createsEndpoints = true;
        }
        try {
          assertScheduleQuota(
            limits,
            operation.config,
            operation.op === 'updateEndpoint' ? operation.stored : null,
            now,
          );
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          const field = error.details?.field;
          throw new AppError(error.code, `${path}: ${error.message}`, {
            ...error.details,
            path: typeof field === 'string' ? `${path}.${field}` : path,
          });
        }
        break;
      default:
        break;
    }
  });
  if (createsJobs && jobs > limits.maxJobs) {
    throw quotaExceeded(
      'maxJobs',
      limits.maxJobs,
      jobs,
      `the document needs ${jobs} jobs; the account may have ${limits.maxJobs}`,
    );
  }
  if (createsEndpoints && endpoints > limits.maxEndpoints) {
    throw quotaExceeded(
      'maxEndpoints',
      limits.maxEndpoints,
      endpoints,
      `the document needs ${endpoints} endpoints; the account may have ${limits.maxEndpoints}`,
    );
  }
}

/** The audit events of an apply: one per change, then a summary. */
function auditEvents(changes: ConfigChange[], unchanged: number, prune: boolean): ConfigAuditEvent[] {
  const verbs = { create: 'created', update: 'updated', delete: 'archived' } as const;
  const events = changes.map((change): ConfigAuditEvent => {
    const verb = change.kind === 'notificationChannel' && change.action === 'delete' ? 'deleted' : verbs[change.action];
    const type = change.kind === 'notificationChannel' ? 'notification_channel' : change.kind;
    return {
      action: `${type}.${verb}`,
      targetType: type,
      targetId: change.id,
      details: { via: 'config', address: change.address, fields: change.fields.map((field) => field.field) },
    };
  });
  const count = (action: ConfigChange['action']) => changes.filter((change) => change.action === action).length;
  events.push({
    action: 'config.applied',
    targetType: null,
    targetId: null,
    details: { created: count('create'), updated: count('update'), deleted: count('delete'), unchanged, prune },
  });
  return events;
}

export function registerConfigRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const tags = ['Configuration'];
  const { db } = deps;
  let queue: NotificationQueue | null = null;

  /** The plan of `document` against `state`, checked: throws what apply would refuse. */
  const checkedPlan = async (
    auth: AuthContext,
    document: ConfigDocument,
    state: ConfigState,
    prune: boolean,
  ): Promise<ConfigPlan> => {
    const limits = await deps.accountLimits.get(auth.accountId);
    const plan = planConfig(document, state, { prune, accountMinIntervalMs: limits.minIntervalMs, newId });
    if (plan.issues.length > 0) throw validationError(plan.issues, 'document');
    assertQuotas(plan, state, limits, deps.now());
    plan.operations.forEach((operation, index) => {
      if ((operation.op === 'createChannel' || operation.op === 'updateChannel') && operation.data.type === 'email') {
        assertEmailAvailable(deps, { path: plan.changes[index]!.path });
      }
    });
    return plan;
  };

  /** Email channels' recipients for the plan's channel operations, and the confirmation mails they cost. */
  const recipientsOf = async (accountId: string, operations: ConfigOperation[]) => {
    const recipients = new Map<number, ChannelRecipients>();
    for (const [index, operation] of operations.entries()) {
      if (operation.op !== 'createChannel' && operation.op !== 'updateChannel') continue;
      if (operation.data.type !== 'email') continue;
      const previous =
        operation.op === 'updateChannel' && operation.stored.type === 'email'
          ? await db.prisma.notificationChannel.findUniqueOrThrow({ where: { id: operation.id } })
          : null;
      recipients.set(
        index,
        await planRecipients(deps, accountId, operation.id, operation.data.recipients, {
          confirmed: previous?.confirmedRecipients ?? [],
          alreadyAsked: previous?.recipients ?? [],
        }),
      );
    }
    return recipients;
  };

  routes.add(
    {
      method: 'get',
      path: `${CONFIG_PATH}/schema.json`,
      operationId: 'getConfigSchema',
      summary: "The configuration document's JSON Schema",
      description: 'For editors (YAML and JSON language servers) to complete and check a kairos.yaml. Public.',
      tags,
      public: true,
      responses: { 200: { description: 'A JSON Schema (draft 2020-12)', schema: z.record(z.string(), z.unknown()) } },
    },
    async () => ({ body: configDocumentJsonSchema(), type: 'application/schema+json' }),
  );

  routes.add(
    {
      method: 'get',
      path: `${CONFIG_PATH}/export`,
      operationId: 'exportConfig',
      summary: "The account's configuration as a document",
      description:
        'Every job that is not archived with its endpoints, and the notification channels. Jobs and endpoints ' +
        'without a key are named by a key derived from their name; applying the export sets it. Sensitive ' +
        'header values are ********, which keeps the stored value when applied: an export holds no secrets, and ' +
        'applying it changes nothing (plan: no changes). format=yaml answers application/yaml.',
      tags,
      query: exportQuery,
      responses: {
        200: { description: 'The document', schema: z.record(z.string(), z.unknown()) },
        ...errorResponses(400),
      },
    },
    async ({ auth, query }) => {
      const document = exportConfig(await loadConfigState(db, auth.accountId, deps.masterKey));
      if (query.format === 'json') return { body: document };
      return { body: stringify(document, { lineWidth: 0 }), type: 'application/yaml; charset=utf-8' };
    },
  );

  routes.add(
    {
      method: 'post',
      path: `${CONFIG_PATH}/plan`,
      role: 'viewer',
      operationId: 'planConfig',
      summary: 'What applying a document would change',
      description: `Changes nothing. ${DOCUMENT_HELP}`,
      tags,
      query: pruneQuery,
      body: configDocument,
      bodyContentTypes: ['application/json', 'application/yaml'],
      responses: {
        200: { description: 'The changes and how many resources are unchanged', schema: configPlanRecord },
        ...errorResponses(400, 409),
      },
    },
    async ({ auth, body, query }) => {
      const plan = await checkedPlan(
        auth,
        body,
        await loadConfigState(db, auth.accountId, deps.masterKey),
        query.prune,
      );
      return { body: { changes: plan.changes, unchanged: plan.unchanged, prune: query.prune } };
    },
  );

  routes.add(
    {
      method: 'post',
      path: `${CONFIG_PATH}/apply`,
      role: 'admin',
      operationId: 'applyConfig',
      summary: 'Make the account match a document',
      description:
        'Plans as POST /api/config/plan does, then makes every change in one transaction: all or nothing. Each ' +
        'change is recorded in the audit log (job.created, endpoint.updated … with via config) with a ' +
        'config.applied summary. Applying the same document again changes nothing (applied false). Deleting ' +
        'archives jobs and endpoints (and frees their keys) and deletes channels. Pauses, hints and job status are ' +
        `not configuration: apply leaves them as they are. ${DOCUMENT_HELP}`,
      tags,
      query: pruneQuery,
      body: configDocument,
      bodyContentTypes: ['application/json', 'application/yaml'],
      responses: {
        200: { description: 'The changes made', schema: configApplyRecord },
        ...errorResponses(400, 409),
      },
    },
    async ({ auth, body, query, res }) => {
      const now = deps.now();
      // Checked before the transaction too, so confirmation mails are not charged for a refused document.
      const first = await checkedPlan(
        auth,
        body,
        await loadConfigState(db, auth.accountId, deps.masterKey),
        query.prune,
      );
      const recipients = await recipientsOf(auth.accountId, first.operations);
      const mails = [...recipients.values()].reduce((sum, plan) => sum + plan.confirmations.length, 0);
      await spendAccountBucket(deps, res, auth.accountId, 'confirmation-mails', CONFIRMATION_MAILS, mails);
      const outcome = await withConfigTransaction(db, auth.accountId, async (tx) => {
        // Planned again under the lock, on the state it writes over: what an apply racing this one
        // already did is not done twice. Ids fixed by the first plan keep the recipients' links valid.
        const state = await loadConfigState(tx, auth.accountId, deps.masterKey);
        const plan = await checkedPlan(auth, body, state, query.prune);
        if (plan.changes.length === 0) return { plan, applied: null };
        if (JSON.stringify(plan.changes) !== JSON.stringify(first.changes)) {
          throw new AppError('CONFLICT', 'the configuration changed while it was applied: plan and apply again');
        }
        const applied = await applyConfigOperations(
          tx,
          first.operations,
          auditEvents(plan.changes, plan.unchanged, query.prune),
          {
            accountId: auth.accountId,
            now,
            actor: { type: auth.actor.type, id: auth.actor.id },
            recipients,
            masterKey: deps.masterKey,
          },
        );
        return { plan, applied };
      });
      const { plan, applied } = outcome;
      if (applied) {
        await deps.notifier.notify(applied.endpointIds, 'config-applied');
        if (applied.notificationIds.length > 0) {
          queue ??= createNotificationQueue(deps.redis, deps.config.KAIROS_QUEUE_PREFIX);
          await queue
            .enqueue(applied.notificationIds)
            .catch((error: Error) =>
              deps.logger.warn('notification not published; the sweep will re-add it', { error: error.message }),
            );
        }
      }
      const changes = plan.changes.map((change, index) => ({
        ...change,
        id: change.id ?? applied?.createdIds.get(index) ?? null,
      }));
      return { body: { changes, unchanged: plan.unchanged, prune: query.prune, applied: applied !== null } };
    },
  );
}
