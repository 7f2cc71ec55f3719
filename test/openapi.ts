/**
 * Contract checks: a real response must be documented in /api/doc (its status listed for that
 * operation) and its body must validate against the documented schema.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;

export function createContractChecker(document: Json) {
  const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
  (addFormats as unknown as (ajv: unknown) => void)(ajv);
  const paths = document.paths as Record<string, Record<string, Json>>;
  const templates = Object.keys(paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const validators = new Map<string, ReturnType<typeof ajv.compile>>();

  return function expectDocumented(method: string, url: string, status: number, body: unknown): void {
    const path = url.split('?')[0]!;
    const match = templates.find(({ pattern }) => pattern.test(path));
    if (!match) throw new Error(`${method} ${path} is not documented in /api/doc`);
    const operation = paths[match.template]![method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${match.template} is not documented in /api/doc`);
    const response = (operation.responses as Record<string, Json>)[String(status)];
    if (!response) throw new Error(`${method} ${match.template} answered ${status}, which /api/doc does not list`);
    const schema = ((response.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema as
      Json | undefined;
    if (!schema) return;
    const key = `${method} ${match.template} ${status}`;
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile({ ...schema, components: document.components });
      validators.set(key, validate);
    }
    if (!validate(body)) {
      throw new Error(
        `${key}: body does not match /api/doc: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
      );
    }
  };
}
