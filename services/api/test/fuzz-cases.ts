/**
 * Request generators for the fuzz test, read from the OpenAPI document (/api/doc): for every
 * operation, requests whose path parameters, query strings and bodies mix values that fit the
 * documented schema with hostile ones (wrong types, huge and negative numbers, deep nesting, U+0000,
 * lone surrogates, invalid UTF-8, malformed JSON, wrong content types).
 */
import { LIMITS } from '@kairos/core';
import fc from 'fast-check';

type Json = Record<string, unknown>;

export interface Operation {
  method: 'get' | 'post' | 'patch' | 'delete';
  template: string;
  operationId: string;
  pathParams: string[];
  queryParams: { name: string; schema: Json }[];
  bodySchema: Json | null;
}

export interface FuzzRequest {
  kind: 'json' | 'raw';
  path: string;
  /** Raw query string (already percent-encoded, possibly badly). */
  query: string;
  body?: unknown;
  rawBody?: Buffer;
  contentType?: string;
  contentEncoding?: string;
}

export function operationsOf(document: Json): Operation[] {
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const resolve = (schema: Json): Json =>
    typeof schema.$ref === 'string' ? resolve(schemas[schema.$ref.split('/').pop()!]!) : schema;
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(methods)) {
      const parameters = (operation.parameters ?? []) as Json[];
      const content = ((operation.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
      const bodySchema = content['application/json']?.schema as Json | undefined;
      operations.push({
        method: method as Operation['method'],
        template,
        operationId: operation.operationId as string,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name as string),
        queryParams: parameters
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name as string, schema: resolve((p.schema ?? {}) as Json) })),
        bodySchema: bodySchema ? resolveDeep(bodySchema, resolve) : null,
      });
    }
  }
  return operations;
}

function resolveDeep(schema: Json, resolve: (schema: Json) => Json): Json {
  const resolved = resolve(schema);
  const properties = resolved.properties as Record<string, Json> | undefined;
  if (!properties) return resolved;
  return {
    ...resolved,
    properties: Object.fromEntries(Object.entries(properties).map(([name, child]) => [name, resolve(child)])),
  };
}

const ODD_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  '\uDBFF\u0000',
  '',
  ' ',
  'é🙂',
  '\u202Eevil',
  "'; DROP TABLE jobs; --",
  '%00',
  'x'.repeat(5000),
];

const nestedArray = (depth: number): unknown => {
  let value: unknown = 1;
  for (let level = 0; level < depth; level += 1) value = [value];
  return value;
};

/** Values of the wrong kind, out of range or oddly encoded, for any field. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...ODD_STRINGS),
  fc.constantFrom(0, -1, 1.5, -1e308, 1e308, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 1e-9),
  fc.constantFrom(true, false, null, [], {}),
  fc.constantFrom(nestedArray(50), nestedArray(1500), { a: { b: { c: { d: '\u0000' } } } }),
  fc.dictionary(fc.constantFrom('\u0000', 'k\uD800', 'X-Ok', '__proto__', 'constructor'), fc.string(), {
    maxKeys: 2,
  }),
  fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

/** A value that fits the schema more or less, so validation gets past the first field. */
function fittingValue(schema: Json): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (schema.const !== undefined) return fc.constant(schema.const);
  const variants = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (variants?.length) return fc.oneof(...variants.map((variant) => fittingValue(variant)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Math.max(min, 0) + 10_000_000;
      return fc.integer({ min: Math.ceil(Math.max(min, -(2 ** 31))), max: Math.floor(Math.min(max, 2 ** 31)) });
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(fittingValue((schema.items ?? {}) as Json), { maxLength: 3 });
    case 'object':
      return schema.properties ? objectOf(schema) : fc.dictionary(fc.string({ maxLength: 8 }), fc.string());
    case 'null':
      return fc.constant(null);
    default:
      if (schema.format === 'date-time') {
        return fc
          .integer({ min: -86_400_000, max: 86_400_000 * 30 })
          .map((ms) => new Date(Date.now() + ms).toISOString());
      }
      if (schema.format === 'uri') return fc.constantFrom('https://example.com/x', 'http://127.0.0.1:1/', 'ftp://x');
      return fc.string({ maxLength: 40 });
  }
}

function objectOf(schema: Json): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const model = Object.fromEntries(
    Object.entries(properties).map(([name, child]) => [
      name,
      fc.oneof({ arbitrary: fittingValue(child), weight: 3 }, { arbitrary: hostileValue, weight: 1 }),
    ]),
  );
  return fc.record(model, { requiredKeys: [] });
}

const PATH_ODDITIES = ['%00', '%ED%A0%80', '%FF', '%', 'not-an-id', 'x'.repeat(300), '..', '%2F'];
const QUERY_ODDITIES = ['%00', '%ED%A0%80', '%FF', '%', '-1', '1e999', '99999999999999999999', '', 'a%zz', '1.5'];

function queryArbitrary(operation: Operation): fc.Arbitrary<string> {
  const pair = fc.oneof(
    ...operation.queryParams.map(({ name, schema }) =>
      fc
        .oneof(
          fittingValue(schema).map((value) => encodeURIComponent(String(value))),
          fc.constantFrom(...QUERY_ODDITIES),
        )
        .map((value) => `${name}=${value}`),
    ),
    fc.constantFrom('limit[]=1', 'limit[a]=1', 'limit=1&limit=2', '%00=1', 'x%ED%A0%80=1', '&&=&', 'status=%00'),
  );
  return fc.array(pair, { maxLength: 3 }).map((pairs) => pairs.join('&'));
}

const RAW_BODIES: { body: string | Buffer; contentType: string; contentEncoding?: string }[] = [
  { body: '{"name":', contentType: 'application/json' },
  { body: '{"name":"a\u0000b"}', contentType: 'application/json' },
  {
    body: Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x80, 0x22, 0x7d]),
    contentType: 'application/json',
  },
  { body: Buffer.from('{"name":"\\ud800"}'), contentType: 'application/json' },
  { body: '[1,2]', contentType: 'application/json' },
  { body: '"text"', contentType: 'application/json' },
  { body: 'null', contentType: 'application/json' },
  { body: '{"name":"x"}', contentType: 'text/plain' },
  { body: '<name>x</name>', contentType: 'application/xml' },
  { body: '{"name":"x"}', contentType: 'application/json; charset=utf-16' },
  { body: '{"name":"x"}', contentType: 'application/json; charset=latin1' },
  { body: 'not gzip', contentType: 'application/json', contentEncoding: 'gzip' },
  { body: '{"name":"x"}', contentType: 'application/json', contentEncoding: 'br2' },
  { body: 'name=%00&client_name=%ED%A0%80&user_code=%FF', contentType: 'application/x-www-form-urlencoded' },
  { body: `{"a":${'['.repeat(2_000)}${']'.repeat(2_000)}}`, contentType: 'application/json' },
  { body: `{"name":"${'x'.repeat(LIMITS.requestBodyMaxBytes)}"}`, contentType: 'application/json' },
  { body: '{"__proto__":{"admin":true},"constructor":{"prototype":{}}}', contentType: 'application/json' },
];

/** Requests for one operation; `ids` fills path parameters with real ids. */
export function requestArbitrary(operation: Operation, ids: Record<string, string>): fc.Arbitrary<FuzzRequest> {
  const segment = (name: string) =>
    fc.oneof(
      { arbitrary: fc.constant(ids[name] ?? 'missing'), weight: 4 },
      { arbitrary: fc.constantFrom(...PATH_ODDITIES), weight: 1 },
    );
  const path = fc
    .tuple(...operation.pathParams.map(segment))
    .map((values) =>
      operation.pathParams.reduce(
        (template, name, index) => template.replace(`{${name}}`, values[index]!),
        operation.template,
      ),
    );
  const query = queryArbitrary(operation);
  const jsonBody = operation.bodySchema
    ? fc.oneof({ arbitrary: objectOf(operation.bodySchema), weight: 4 }, { arbitrary: hostileValue, weight: 1 })
    : fc.constant(undefined);
  const json = fc.record({ path, query, body: jsonBody }).map((request): FuzzRequest => ({ kind: 'json', ...request }));
  const raw = fc
    .record({ path, query, raw: fc.constantFrom(...RAW_BODIES) })
    .map(({ path, query, raw }): FuzzRequest => ({
      kind: 'raw',
      path,
      query,
      rawBody: Buffer.isBuffer(raw.body) ? raw.body : Buffer.from(raw.body),
      contentType: raw.contentType,
      ...(raw.contentEncoding ? { contentEncoding: raw.contentEncoding } : {}),
    }));
  return fc.oneof({ arbitrary: json, weight: 3 }, { arbitrary: raw, weight: 1 });
}
