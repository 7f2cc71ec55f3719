/**
 * The configuration document (`apiVersion: kairos/v1`, YAML or JSON): an account's jobs with their
 * endpoints, and its notification channels, as a file reviewed in pull requests.
 *
 * The endpoint fields are the endpoint input schema's own (schemas/endpoint.ts, canonical spellings
 * only), so a field added there is a document field at once; `rules` differ only in `runEndpoint`,
 * which names a sibling by key (ids differ between accounts). Jobs are named by `key` (unique in
 * the account), endpoints by `key` (unique in their job), channels by `name`.
 *
 * A section left out is not managed: it is neither compared nor pruned. A field left out of an
 * endpoint means its default, as on create (the document is the whole configuration).
 */
import { secretName } from '../shared-secrets.js';
import { z } from 'zod';
import { resourceKey } from '../schemas/common.js';
import { createEndpointInput } from '../schemas/endpoint.js';
import { createJobInput } from '../schemas/job.js';
import { createNotificationChannelInput } from '../schemas/notifications.js';
import { responseRule, ruleAction, ruleListOf } from '../schemas/response-rules.js';

export const CONFIG_API_VERSION = 'kairos/v1';

/**
 * A header value meaning "keep the value Kairos stores": what an export writes for a sensitive header
 * (the export never holds secrets), so applying an export changes nothing. A new endpoint has no
 * stored value to keep: give the value, or a secret reference such as `{{secrets.NAME}}`.
 */
export { MASKED_HEADER_VALUE as KEEP_STORED_VALUE } from '../schemas/limits.js';

export const CONFIG_LIMITS = {
  /** Bytes of a document the api reads (the other routes take 256 KiB). */
  documentMaxBytes: 8 * 1024 * 1024,
  jobsMax: 10_000,
  endpointsPerJobMax: 1_000,
} as const;

const configRuleAction = ruleAction.safeExtend({
  runEndpoint: resourceKey
    .optional()
    .meta({ description: 'Run this other endpoint of the same job once now: its key in this document' }),
});
const configRules = ruleListOf(responseRule.extend({ then: configRuleAction }));

export const configEndpoint = createEndpointInput
  .omit({ headers: true, body: true })
  .extend({
    key: resourceKey.meta({ description: 'Names the endpoint in its job (stable across renames and accounts)' }),
    rules: configRules.nullable().optional(),
  })
  .meta({ id: 'ConfigEndpoint', description: 'An endpoint: the endpoint input fields, named by key' });

export const configJob = z
  .strictObject({
    key: resourceKey.meta({ description: 'Names the job in the account (stable across renames and accounts)' }),
    name: createJobInput.shape.name,
    description: createJobInput.shape.description.unwrap().nullable().optional(),
    endpoints: z
      .array(configEndpoint)
      .max(CONFIG_LIMITS.endpointsPerJobMax, `at most ${CONFIG_LIMITS.endpointsPerJobMax} endpoints a job`)
      .default([]),
  })
  .meta({ id: 'ConfigJob', description: 'A job and its endpoints' });

export const configDocument = z
  .strictObject({
    apiVersion: z.literal(CONFIG_API_VERSION, { error: `must be ${CONFIG_API_VERSION}` }),
    jobs: z
      .array(configJob)
      .max(CONFIG_LIMITS.jobsMax, `at most ${CONFIG_LIMITS.jobsMax} jobs`)
      .optional()
      .meta({ description: 'The jobs; left out: jobs are not managed by this document' }),
    notificationChannels: z.array(createNotificationChannelInput).optional().meta({
      description: 'Notification channels, named by name; left out: channels are not managed by this document',
    }),
    secrets: z
      .array(secretName)
      .max(1000, 'at most 1000 secret names')
      .optional()
      .meta({
        description:
          'Names of shared secrets that must exist in the account (values are never part of a document; ' +
          'set them with POST /api/secrets). The plan reports a missing one, and any {{secrets.NAME}} an ' +
          'endpoint references that the account lacks, as an issue.',
      }),
  })
  .meta({
    id: 'ConfigDocument',
    title: 'Kairos configuration',
    description:
      'Jobs with their endpoints (by key) and notification channels (by name). Sensitive header values read ' +
      '"********" in an export: that value keeps the stored one.',
  });

export type ConfigDocument = z.output<typeof configDocument>;
export type ConfigJob = z.output<typeof configJob>;
export type ConfigEndpoint = z.output<typeof configEndpoint>;
export type ConfigChannel = NonNullable<ConfigDocument['notificationChannels']>[number];

/** The document's JSON Schema (draft 2020-12), served at /api/config/schema.json for editors. */
export function configDocumentJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configDocument, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
  // zod puts a schema with an id under $defs and refers to it from the root: editors want it at the root.
  const { $defs, $ref, ...root } = schema as { $defs?: Record<string, object>; $ref?: string };
  const { ConfigDocument: document, ...definitions } = $defs ?? {};
  return $ref && document ? { ...root, ...document, $defs: definitions } : schema;
}
