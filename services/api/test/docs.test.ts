import { createApiHarness, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;

beforeAll(async () => {
  harness = await createApiHarness();
});
afterAll(() => harness.close());

describe('documentation', () => {
  it('serves an OpenAPI 3.1 document covering every registered route', async () => {
    const response = await harness.http.get('/api/doc');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    const documented = Object.entries(response.body.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const registered = harness.routes.routes.map(
      ({ spec }) => `${spec.method.toUpperCase()} ${spec.path.replace(/:(\w+)/g, '{$1}')}`,
    );
    expect(documented.sort()).toEqual(registered.sort());
    for (const route of [
      'POST /api/jobs',
      'GET /api/jobs',
      'GET /api/jobs/{jobId}',
      'PATCH /api/jobs/{jobId}',
      'POST /api/jobs/{jobId}/archive',
      'POST /api/jobs/{jobId}/pause',
      'POST /api/jobs/{jobId}/resume',
      'POST /api/jobs/{jobId}/endpoints',
      'GET /api/jobs/{jobId}/endpoints',
      'GET /api/jobs/{jobId}/endpoints/{endpointId}',
      'GET /api/endpoints/{endpointId}',
      'PATCH /api/jobs/{jobId}/endpoints/{endpointId}',
      'POST /api/jobs/{jobId}/endpoints/{endpointId}/archive',
    ]) {
      expect(documented).toContain(route);
    }
    expect(response.body.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
    });
  });

  it('documents the input rules from the validation schemas', async () => {
    const document = (await harness.http.get('/api/doc')).body;
    const input = document.components.schemas.CreateEndpointInput;
    expect(input.required.sort()).toEqual(['method', 'name', 'url']);
    expect(input.properties.method.enum ?? input.properties.method.anyOf).toBeDefined();
    expect(JSON.stringify(input.properties.baselineIntervalMs)).toContain('1000');
    expect(input.additionalProperties).toBe(false);
  });

  it('serves llms.txt as Markdown listing the routes', async () => {
    const response = await harness.http.get('/api/llms.txt');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/markdown/);
    expect(response.text).toContain('# Kairos API');
    expect(response.text).toContain('## POST /api/jobs/{jobId}/endpoints');
    expect(response.text).toContain('`baselineIntervalMs`');
    // The signing key grace window is explained where agents read the API.
    expect(response.text).toContain('## POST /api/signing-keys/revoke-previous');
    expect(response.text).toContain('`signingKeyGraceMinutes`');
    expect(response.text).toContain('`responseBodyAltered` (required): boolean — True when characters of responseBody');
    // Response rules: where agents read the API, with the backtest and the rule in force named.
    expect(response.text).toMatch(/Response rules: an endpoint's `successWhen` decides success/);
    expect(response.text).toContain('`ruleState` names the rule whose interval is in force');
    expect(response.text).toContain('## POST /api/endpoints/{endpointId}/backtest');
    expect(response.text).toContain('`rulesMatched`');
  });

  it('serves the interactive reference with its script from our own origin', async () => {
    const page = await harness.http.get('/api/reference');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('/api/reference/assets/standalone.js');
    expect(page.text).not.toMatch(/https?:\/\/(cdn|unpkg|fastly)/);
    const script = await harness.http.get('/api/reference/assets/standalone.js');
    expect(script.status).toBe(200);
    expect(script.text.length).toBeGreaterThan(100_000);
  });
});
