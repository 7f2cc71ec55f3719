/**
 * Body templates: tokens substituted in the request before it is signed and sent.
 *
 * | Token            | Value                                                          |
 * |------------------|----------------------------------------------------------------|
 * | `{{lastRunAt}}`  | ISO 8601 UTC start of the endpoint's previous run; '' if none  |
 * | `{{scheduledAt}}`| ISO 8601 UTC time this run was scheduled for                   |
 * | `{{runId}}`      | id of this run                                                 |
 * | `{{endpointId}}` | id of the endpoint                                             |
 * | `{{now}}`        | ISO 8601 UTC time the request was prepared (same clock as the signature timestamp) |
 *
 * Spaces inside the braces are allowed (`{{ now }}`). Unknown tokens are left as written, so a
 * body that legitimately contains `{{...}}` for the receiver passes through.
 *
 * Where tokens apply:
 * - string bodies: substituted as plain text;
 * - object bodies: in every string value, at any depth (keys are not touched), before the object
 *   is serialised, so JSON escaping stays correct;
 * - the URL's query string (after `?`, before `#`), with values percent-encoded, so a GET endpoint
 *   can ask `?since={{lastRunAt}}`. The rest of the URL is not templated: it decides where the
 *   request goes and is what the egress guard checks.
 * Headers are not templated.
 *
 * Almost no request holds a token, so prepareRequest asks `needsRendering` first and builds the
 * values (three ISO dates) only when it says yes: building them for every request was about 0.6 %
 * of the executor's busy time at saturation (`node --cpu-prof`).
 */
import type { ExecutionContext, HttpRequestSpec } from './types.js';

export interface TemplateValues {
  lastRunAt: string;
  scheduledAt: string;
  runId: string;
  endpointId: string;
  now: string;
}

const TOKEN_PATTERN = /\{\{\s*([A-Za-z]+)\s*\}\}/g;
/** Every token starts with it: a text without it renders to itself. */
const TOKEN_START = '{{';

/**
 * False only when rendering `value` (the URL, a body) would give it back unchanged, serialised
 * too, so that it can go as it is: a string without `{{`, null, a number or boolean, or plain
 * objects and arrays (what a JSON body is) holding no such string at any depth. Anything else
 * answers true and is rendered as before: a `{{` (even one that is no token), and any other object
 * (a Date, an object with toJSON, a class instance or a null-prototype object: rendering copies its
 * own properties into a plain object, which may serialise differently). Keys are not looked at:
 * they are never rendered. Allocates nothing, as it runs for every request.
 */
export function needsRendering(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(TOKEN_START);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype || Object.hasOwn(value, 'toJSON')) return true;
    for (let index = 0; index < value.length; index++) if (needsRendering(value[index])) return true;
    return false;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype || 'toJSON' in value) return true;
  for (const key in value) {
    if (Object.hasOwn(value, key) && needsRendering((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

export function buildTemplateValues(ctx: ExecutionContext, now: Date): TemplateValues {
  return {
    lastRunAt: ctx.lastRunAt ? ctx.lastRunAt.toISOString() : '',
    scheduledAt: ctx.scheduledAt.toISOString(),
    runId: ctx.runId,
    endpointId: ctx.endpointId,
    now: now.toISOString(),
  };
}

export function renderTemplate(
  text: string,
  values: TemplateValues,
  encode: (value: string) => string = String,
): string {
  return text.replace(TOKEN_PATTERN, (token: string, name: string) =>
    Object.hasOwn(values, name) ? encode(values[name as keyof TemplateValues]) : token,
  );
}

function renderValue(value: unknown, values: TemplateValues): unknown {
  if (typeof value === 'string') return renderTemplate(value, values);
  if (Array.isArray(value)) return value.map((item) => renderValue(item, values));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderValue(item, values)]));
  }
  return value;
}

export function renderBodyTemplate(body: HttpRequestSpec['body'], values: TemplateValues): HttpRequestSpec['body'] {
  if (body === null) return null;
  if (typeof body === 'string') return renderTemplate(body, values);
  return renderValue(body, values) as Record<string, unknown>;
}

export function renderUrlTemplate(url: string, values: TemplateValues): string {
  const fragmentStart = url.indexOf('#');
  const queryEnd = fragmentStart === -1 ? url.length : fragmentStart;
  const queryStart = url.indexOf('?');
  if (queryStart === -1 || queryStart > queryEnd) return url;
  const query = renderTemplate(url.slice(queryStart, queryEnd), values, encodeURIComponent);
  return url.slice(0, queryStart) + query + url.slice(queryEnd);
}
