/** GET /api/llms.txt: the API as Markdown for AI agents, rendered from the OpenAPI document. */
type Json = Record<string, unknown>;

function describeSchema(schema: Json | undefined, components: Json, depth = 0): string {
  if (!schema) return '';
  const ref = schema.$ref as string | undefined;
  if (ref) {
    const name = ref.split('/').pop()!;
    return depth > 0 ? name : describeSchema((components[name] as Json) ?? {}, components, depth + 1) || name;
  }
  if (schema.type === 'array')
    return `array of ${describeSchema(schema.items as Json, components, depth + 1) || 'items'}`;
  const properties = schema.properties as Record<string, Json> | undefined;
  if (!properties || depth > 1) return (schema.type as string) ?? '';
  const required = new Set((schema.required as string[]) ?? []);
  return Object.entries(properties)
    .map(([name, property]) => {
      const type = property.$ref
        ? (property.$ref as string).split('/').pop()
        : ((property.type as string | string[]) ?? 'value');
      const note = (property.description as string) ?? '';
      return `\n  - \`${name}\`${required.has(name) ? ' (required)' : ''}: ${Array.isArray(type) ? type.join(' | ') : type}${note ? ` — ${note}` : ''}`;
    })
    .join('');
}

/** A response's headers (X-Total-Count, Link on the paged lists) as indented bullets. */
function describeHeaders(headers: Json | undefined): string {
  if (!headers) return '';
  return Object.entries(headers as Record<string, Json>)
    .map(([name, header]) => {
      const description = (header.description ?? (header.schema as Json | undefined)?.description ?? '') as string;
      return `\n  - header \`${name}\`${description ? `: ${description}` : ''}`;
    })
    .join('');
}

export function renderLlmsTxt(document: Json): string {
  const info = document.info as Json;
  const components = ((document.components as Json)?.schemas as Json) ?? {};
  const lines = [`# ${info.title as string}`, '', `> ${info.description as string}`, ''];
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item)) {
      const tag = ((operation.tags as string[]) ?? ['Other'])[0]!;
      const section = byTag.get(tag) ?? [];
      section.push(`## ${method.toUpperCase()} ${path}`, '', operation.summary as string);
      if (operation.description) section.push('', operation.description as string);
      const parameters =
        (operation.parameters as Json[] | undefined)?.filter((parameter) => parameter.in === 'query') ?? [];
      if (parameters.length > 0) {
        section.push(
          '',
          'Query:',
          ...parameters.map((p) => `- \`${p.name as string}\`: ${(p.description as string) ?? ''}`),
        );
      }
      const body = ((operation.requestBody as Json)?.content as Json)?.['application/json'] as Json | undefined;
      if (body) section.push('', `Body: ${describeSchema(body.schema as Json, components)}`);
      const responses = operation.responses as Record<string, Json>;
      section.push(
        '',
        'Responses:',
        ...Object.entries(responses).map(([status, response]) => {
          const schema = ((response.content as Json)?.['application/json'] as Json)?.schema as Json | undefined;
          const shape = status.startsWith('2') && schema ? `: ${describeSchema(schema, components)}` : '';
          return `- ${status} ${response.description as string}${shape}${describeHeaders(response.headers as Json)}`;
        }),
        '',
      );
      byTag.set(tag, section);
    }
  }
  for (const [tag, section] of byTag) lines.push(`# ${tag}`, '', ...section);
  return lines.join('\n');
}
