/**
 * The document's endpoint fields and the stored configuration: one list, the document schema's own
 * keys. Each is the EndpointConfig field of the same name, except the canonical spellings
 * headersJson and bodyJson (stored as headers and body); the type check below fails the build when
 * an input field has no stored counterpart, so a new field cannot be forgotten here.
 */
import { dequal } from 'dequal/lite';
import type { z } from 'zod';
import { ENDPOINT_DEFAULTS, maskHeaders, type EndpointConfig } from '../schemas/endpoint.js';
import type { ResponseRule } from '../schemas/response-rules.js';
import { configEndpoint } from './document.js';

export type DocumentEndpointField = keyof z.input<typeof configEndpoint>;

const STORED_AS = { headersJson: 'headers', bodyJson: 'body' } as const;
type Unstored = Exclude<DocumentEndpointField, keyof EndpointConfig | keyof typeof STORED_AS>;
// A compile error here names a document field that EndpointConfig does not store.
const everyFieldStored: [Unstored] extends [never] ? true : Unstored = true;
void everyFieldStored;

export const DOCUMENT_ENDPOINT_FIELDS = Object.keys(configEndpoint.shape) as DocumentEndpointField[];

export const storedField = (field: DocumentEndpointField): keyof EndpointConfig =>
  (STORED_AS as Record<string, keyof EndpointConfig>)[field] ?? (field as keyof EndpointConfig);

/** Written by an export even at their default: what an endpoint is. */
const ALWAYS_WRITTEN: ReadonlySet<DocumentEndpointField> = new Set(['key', 'name', 'url', 'method']);

/**
 * A field's value as a document shows it: sensitive header values masked, rules naming their
 * target by key (`keyOfId` gives a sibling's key; an id it does not know stays as it is).
 */
export function documentValue(
  config: EndpointConfig,
  field: DocumentEndpointField,
  keyOfId: (id: string) => string | undefined,
): unknown {
  const value = config[storedField(field)];
  if (field === 'headersJson') return maskHeaders(config.headers);
  if (field === 'rules' && config.rules) {
    return config.rules.map((rule): ResponseRule => {
      const target = rule.then.runEndpoint;
      return target === undefined ? rule : { ...rule, then: { ...rule.then, runEndpoint: keyOfId(target) ?? target } };
    });
  }
  return value;
}

/** The endpoint as a document lists it: its key, what it is, and every field not at its default. */
export function documentEndpoint(
  key: string,
  config: EndpointConfig,
  keyOfId: (id: string) => string | undefined,
): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  for (const field of DOCUMENT_ENDPOINT_FIELDS) {
    if (field === 'key') {
      entry.key = key;
      continue;
    }
    const value = documentValue(config, field, keyOfId);
    if (ALWAYS_WRITTEN.has(field) || !dequal(config[storedField(field)], ENDPOINT_DEFAULTS[storedField(field)])) {
      entry[field] = value;
    }
  }
  return entry;
}
