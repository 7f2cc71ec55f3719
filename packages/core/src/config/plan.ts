/**
 * What a configuration document changes in an account: compared with the stored state, each job,
 * endpoint and notification channel the document names is created, updated (the fields that differ,
 * before and after) or unchanged; with `prune`, what the document's sections leave out is deleted
 * (archived: jobs and endpoints; channels are deleted). Pure: the caller loads the state, checks
 * quotas and carries out the operations (in one transaction).
 *
 * Matching is by key (jobs in the account, endpoints in their job) and by name (channels). A stored
 * job or endpoint without a key is matched by the key an export derives for it (keys.ts); the plan
 * then sets that key, so the next plan matches it by its own.
 */
import { referencedSecretNames } from '../shared-secrets.js';
import { dequal } from 'dequal/lite';
import type { FieldIssue } from '../schemas/endpoint.js';
import { checkResponseRules, type ResponseRule } from '../schemas/response-rules.js';
import {
  applyEndpointInput,
  keepMaskedHeaders,
  type CreateEndpointInput,
  type EndpointConfig,
} from '../schemas/endpoint.js';
import { NOTIFICATION_EVENTS, type NotificationChannelType } from '../schemas/notifications.js';
import type { ConfigChannel, ConfigDocument, ConfigEndpoint } from './document.js';
import { DOCUMENT_ENDPOINT_FIELDS, documentValue, storedField } from './fields.js';
import { effectiveKeys } from './keys.js';

export interface StoredEndpoint {
  id: string;
  config: EndpointConfig;
}
export interface StoredJob {
  id: string;
  key: string | null;
  name: string;
  description: string | null;
  /** Not archived, oldest first. */
  endpoints: StoredEndpoint[];
}
export interface StoredChannel {
  id: string;
  name: string;
  type: NotificationChannelType;
  url: string | null;
  recipients: string[];
  /** Empty: every event. */
  events: string[];
}
/** The account's configuration as stored: jobs that are not archived (oldest first) and channels. */
export interface ConfigState {
  jobs: StoredJob[];
  channels: StoredChannel[];
  /** Names of the account's shared secrets (their values are never loaded here). */
  secretNames?: string[];
}

export type ConfigKind = 'job' | 'endpoint' | 'notificationChannel';
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}
export interface ConfigChange {
  action: 'create' | 'update' | 'delete';
  kind: ConfigKind;
  /** `orders`, `orders/check` (job/endpoint keys), or a channel's name. */
  address: string;
  /** Where the document names it (`jobs[0].endpoints[1]`); null for a delete. */
  path: string | null;
  /** The stored resource's id; null for a create. */
  id: string | null;
  /** update: the fields that differ (sensitive header values masked on both sides). */
  fields: FieldChange[];
}

export type JobData = { key: string; name: string; description: string | null };
export type ChannelData = {
  name: string;
  type: NotificationChannelType;
  url: string | null;
  recipients: string[];
  events: string[];
};
export type ConfigOperation =
  | { op: 'createJob'; id: string; data: JobData }
  | { op: 'updateJob'; id: string; data: JobData }
  | { op: 'archiveJob'; id: string; endpointIds: string[] }
  | { op: 'createEndpoint'; id: string; jobId: string; config: EndpointConfig }
  | { op: 'updateEndpoint'; id: string; config: EndpointConfig; stored: EndpointConfig }
  | { op: 'archiveEndpoint'; id: string }
  | { op: 'createChannel'; id: string; data: ChannelData }
  | { op: 'updateChannel'; id: string; data: ChannelData; stored: StoredChannel }
  | { op: 'deleteChannel'; id: string };

export interface ConfigPlan {
  changes: ConfigChange[];
  /** The operations that make the changes, one per change, in the same order. */
  operations: ConfigOperation[];
  unchanged: number;
  /** Problems with the document, each naming its path; a plan with issues must not be applied. */
  issues: FieldIssue[];
}

export interface PlanOptions {
  prune: boolean;
  /** The account's minimum interval, for rules (tiers.ts). */
  accountMinIntervalMs: number;
  /** Ids for resources the plan creates (fixed here: rules name new siblings by them). */
  newId: () => string;
}

const JOB_FIELDS = ['key', 'name', 'description'] as const;
const CHANNEL_FIELDS = ['type', 'url', 'recipients', 'events'] as const;

export function planConfig(document: ConfigDocument, state: ConfigState, options: PlanOptions): ConfigPlan {
  const plan: ConfigPlan = { changes: [], operations: [], unchanged: 0, issues: [] };
  const add = (change: ConfigChange, operation: ConfigOperation) => {
    plan.changes.push(change);
    plan.operations.push(operation);
  };
  if (document.jobs) planJobs(document.jobs, state.jobs, options, plan, add);
  if (document.notificationChannels) planChannels(document.notificationChannels, state.channels, options, plan, add);
  plan.issues.push(...missingSecrets(document, state.secretNames ?? []));
  return plan;
}

/** Declared or referenced shared secrets the account does not have: the runs would fail (secret_missing). */
function missingSecrets(document: ConfigDocument, existing: string[]): FieldIssue[] {
  const have = new Set(existing);
  const issues: FieldIssue[] = [];
  (document.secrets ?? []).forEach((name, index) => {
    if (!have.has(name)) {
      issues.push({
        field: `secrets[${index}]`,
        message: `the account has no secret named ${name} (POST /api/secrets)`,
      });
    }
  });
  (document.jobs ?? []).forEach((job, jobIndex) =>
    job.endpoints.forEach((endpoint, endpointIndex) => {
      for (const name of referencedSecretNames(endpoint.url, endpoint.headersJson, endpoint.bodyJson)) {
        if (have.has(name)) continue;
        issues.push({
          field: `jobs[${jobIndex}].endpoints[${endpointIndex}]`,
          message: `references {{secrets.${name}}}, and the account has no secret named ${name}`,
        });
      }
    }),
  );
  return issues;
}

type Add = (change: ConfigChange, operation: ConfigOperation) => void;

/** Issues for a key (or name) given twice in one list. */
function duplicates(values: string[], path: (index: number) => string, what: string): FieldIssue[] {
  const first = new Map<string, number>();
  const issues: FieldIssue[] = [];
  values.forEach((value, index) => {
    const earlier = first.get(value);
    if (earlier === undefined) first.set(value, index);
    else issues.push({ field: path(index), message: `${what} "${value}" is also given at ${path(earlier)}` });
  });
  return issues;
}

function planJobs(
  jobs: ConfigDocument['jobs'] & object,
  stored: StoredJob[],
  options: PlanOptions,
  plan: ConfigPlan,
  add: Add,
) {
  plan.issues.push(
    ...duplicates(
      jobs.map((job) => job.key),
      (index) => `jobs[${index}].key`,
      'key',
    ),
  );
  const storedKeys = effectiveKeys(stored, 'job');
  const storedByKey = new Map(stored.map((job, index) => [storedKeys[index]!, job]));
  const named = new Set(jobs.map((job) => job.key));

  jobs.forEach((job, index) => {
    const path = `jobs[${index}]`;
    const current = storedByKey.get(job.key);
    const data: JobData = { key: job.key, name: job.name, description: job.description ?? null };
    const jobId = current?.id ?? options.newId();
    if (!current) {
      add(
        { action: 'create', kind: 'job', address: job.key, path, id: null, fields: [] },
        { op: 'createJob', id: jobId, data },
      );
    } else {
      const fields = JOB_FIELDS.flatMap((field) =>
        dequal(current[field], data[field]) ? [] : [{ field, before: current[field], after: data[field] }],
      );
      if (fields.length > 0) {
        add(
          { action: 'update', kind: 'job', address: job.key, path, id: current.id, fields },
          { op: 'updateJob', id: current.id, data },
        );
      } else {
        plan.unchanged += 1;
      }
    }
    planEndpoints(job.key, path, jobId, job.endpoints, current?.endpoints ?? [], options, plan, add);
  });

  if (options.prune) {
    stored.forEach((job, index) => {
      const key = storedKeys[index]!;
      if (named.has(key)) return;
      add(
        { action: 'delete', kind: 'job', address: key, path: null, id: job.id, fields: [] },
        { op: 'archiveJob', id: job.id, endpointIds: job.endpoints.map((endpoint) => endpoint.id) },
      );
    });
  }
}

function planEndpoints(
  jobKey: string,
  jobPath: string,
  jobId: string,
  endpoints: ConfigEndpoint[],
  stored: StoredEndpoint[],
  options: PlanOptions,
  plan: ConfigPlan,
  add: Add,
) {
  const pathOf = (index: number) => `${jobPath}.endpoints[${index}]`;
  plan.issues.push(
    ...duplicates(
      endpoints.map((endpoint) => endpoint.key),
      (index) => `${pathOf(index)}.key`,
      'key',
    ),
  );
  const storedKeys = effectiveKeys(
    stored.map((endpoint) => endpoint.config),
    'endpoint',
  );
  const storedByKey = new Map(stored.map((endpoint, index) => [storedKeys[index]!, endpoint]));
  const named = new Set(endpoints.map((endpoint) => endpoint.key));
  const kept = stored.filter((_, index) => !named.has(storedKeys[index]!) && !options.prune);

  // Ids first: rules name siblings by key, created ones included.
  const idOfKey = new Map<string, string>();
  stored.forEach((endpoint, index) => {
    if (!options.prune || named.has(storedKeys[index]!)) idOfKey.set(storedKeys[index]!, endpoint.id);
  });
  for (const endpoint of endpoints) if (!idOfKey.has(endpoint.key)) idOfKey.set(endpoint.key, options.newId());
  const keyOfId = new Map([...idOfKey].map(([key, id]) => [id, key]));

  const desired = endpoints.map((endpoint, index) => {
    const path = pathOf(index);
    const current = storedByKey.get(endpoint.key) ?? null;
    const rules = resolveRuleTargets(endpoint, path, idOfKey, current?.config ?? null, plan.issues);
    const input = { ...endpoint, rules } as unknown as CreateEndpointInput;
    const { config, issues } = applyEndpointInput(null, input);
    plan.issues.push(...issues.map((issue) => within(path, issue)));
    for (const name of keepMaskedHeaders(config, current?.config ?? null)) {
      plan.issues.push({
        field: `${path}.headersJson.${name}`,
        message:
          'the masked value ******** keeps a stored value, and this endpoint has none for this header: give the ' +
          'value (or a secret reference)',
      });
    }
    return { path, current, config, id: idOfKey.get(endpoint.key)! };
  });

  // Chains and targets, checked against the job as it will be.
  const siblings = [
    ...desired.map(({ id, config }) => ({ id, rules: config.rules })),
    ...kept.map((endpoint) => ({ id: endpoint.id, rules: endpoint.config.rules })),
  ];
  for (const { path, current, config, id } of desired) {
    if (current && dequal(current.config.rules, config.rules)) continue;
    const issues = checkResponseRules(config, {
      endpointId: id,
      accountMinIntervalMs: options.accountMinIntervalMs,
      siblings: siblings.filter((sibling) => sibling.id !== id),
    });
    plan.issues.push(...issues.map((issue) => within(path, issue)));
  }

  for (const { path, current, config, id } of desired) {
    const address = `${jobKey}/${config.key}`;
    if (!current) {
      add(
        { action: 'create', kind: 'endpoint', address, path, id: null, fields: [] },
        { op: 'createEndpoint', id, jobId, config },
      );
      continue;
    }
    const display = (value: EndpointConfig, field: (typeof DOCUMENT_ENDPOINT_FIELDS)[number]) =>
      documentValue(value, field, (target) => keyOfId.get(target));
    const fields = DOCUMENT_ENDPOINT_FIELDS.flatMap((field) =>
      dequal(current.config[storedField(field)], config[storedField(field)])
        ? []
        : [{ field, before: display(current.config, field), after: display(config, field) }],
    );
    if (fields.length === 0) {
      plan.unchanged += 1;
    } else {
      add(
        { action: 'update', kind: 'endpoint', address, path, id: current.id, fields },
        { op: 'updateEndpoint', id: current.id, config, stored: current.config },
      );
    }
  }

  if (options.prune) {
    stored.forEach((endpoint, index) => {
      const key = storedKeys[index]!;
      if (named.has(key)) return;
      add(
        { action: 'delete', kind: 'endpoint', address: `${jobKey}/${key}`, path: null, id: endpoint.id, fields: [] },
        { op: 'archiveEndpoint', id: endpoint.id },
      );
    });
  }
}

/**
 * The document's rules with each runEndpoint key replaced by the sibling's id. An id the stored
 * rules already name stays (a rule whose target was archived since: the API keeps it as it is).
 */
function resolveRuleTargets(
  endpoint: ConfigEndpoint,
  path: string,
  idOfKey: Map<string, string>,
  stored: EndpointConfig | null,
  issues: FieldIssue[],
): ResponseRule[] | null | undefined {
  if (!endpoint.rules) return endpoint.rules;
  const storedTargets = new Set((stored?.rules ?? []).flatMap((rule) => rule.then.runEndpoint ?? []));
  return endpoint.rules.map((rule, index) => {
    const target = rule.then.runEndpoint;
    if (target === undefined) return rule as ResponseRule;
    const id = idOfKey.get(target) ?? (storedTargets.has(target) ? target : undefined);
    if (id === undefined) {
      issues.push({
        field: `${path}.rules[${index}].then.runEndpoint`,
        message: `no endpoint with key "${target}" in this job: runEndpoint names a sibling by its key`,
      });
    }
    return { ...rule, then: { ...rule.then, runEndpoint: id ?? target } } as ResponseRule;
  });
}

const within = (path: string, issue: FieldIssue): FieldIssue => ({
  field: issue.field ? `${path}.${issue.field}` : path,
  message: issue.message,
});

/** A channel's events as compared: every event when none are listed (stored empty, or left out). */
const eventsOf = (events: readonly string[] | undefined): string[] =>
  [...(events && events.length > 0 ? events : NOTIFICATION_EVENTS)].sort();

export function channelData(channel: ConfigChannel): ChannelData {
  return {
    name: channel.name,
    type: channel.type,
    url: channel.type === 'email' ? null : channel.url,
    recipients: channel.type === 'email' ? channel.recipients : [],
    events: eventsOf(channel.events),
  };
}

function planChannels(
  channels: ConfigChannel[],
  stored: StoredChannel[],
  options: PlanOptions,
  plan: ConfigPlan,
  add: Add,
) {
  plan.issues.push(
    ...duplicates(
      channels.map((channel) => channel.name),
      (index) => `notificationChannels[${index}].name`,
      'name',
    ),
  );
  const storedByName = new Map<string, StoredChannel>();
  stored.forEach((channel) => {
    if (!storedByName.has(channel.name)) storedByName.set(channel.name, channel);
    else {
      plan.issues.push({
        field: 'notificationChannels',
        message: `the account has several channels named "${channel.name}": rename or delete all but one first`,
      });
    }
  });
  const named = new Set(channels.map((channel) => channel.name));
  channels.forEach((channel, index) => {
    const path = `notificationChannels[${index}]`;
    const data = channelData(channel);
    const current = storedByName.get(channel.name);
    if (!current) {
      add(
        { action: 'create', kind: 'notificationChannel', address: channel.name, path, id: null, fields: [] },
        { op: 'createChannel', id: options.newId(), data },
      );
      return;
    }
    const before: ChannelData = { ...current, events: eventsOf(current.events) };
    const fields = CHANNEL_FIELDS.flatMap((field) =>
      dequal(before[field], data[field]) ? [] : [{ field, before: before[field], after: data[field] }],
    );
    if (fields.length === 0) plan.unchanged += 1;
    else {
      add(
        { action: 'update', kind: 'notificationChannel', address: channel.name, path, id: current.id, fields },
        { op: 'updateChannel', id: current.id, data, stored: current },
      );
    }
  });
  if (options.prune) {
    for (const channel of stored) {
      if (named.has(channel.name)) continue;
      add(
        {
          action: 'delete',
          kind: 'notificationChannel',
          address: channel.name,
          path: null,
          id: channel.id,
          fields: [],
        },
        { op: 'deleteChannel', id: channel.id },
      );
    }
  }
}
