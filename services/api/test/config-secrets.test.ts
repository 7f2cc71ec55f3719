/**
 * Shared secrets in the configuration document: names only. A document declares the secrets it
 * needs; the plan reports a declared or referenced secret the account lacks; the export lists the
 * account's secret names, never a value.
 */
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
let api: ApiClient;

beforeAll(async () => {
  harness = await createApiHarness();
  api = harness.client((await harness.createAccount({ tier: 'enterprise' })).apiKey);
});
afterAll(() => harness.close());

const documentWith = (secrets: string[]) => ({
  apiVersion: 'kairos/v1',
  secrets,
  jobs: [
    {
      key: 'billing',
      name: 'Billing',
      endpoints: [
        {
          key: 'sync',
          name: 'Sync',
          url: 'https://billing.example.com/sync',
          method: 'POST',
          headersJson: { Authorization: 'Bearer {{secrets.BILLING_TOKEN}}' },
          baselineIntervalMs: 3_600_000,
        },
      ],
    },
  ],
});

it('reports missing secrets in the plan, and none once they exist', async () => {
  const missing = await api.post('/api/config/plan', documentWith(['BILLING_TOKEN', 'OTHER']));
  const text = JSON.stringify(missing.body);
  expect(text).toContain('secrets[1]');
  expect(text).toContain('no secret named OTHER');
  expect(text).toContain('{{secrets.BILLING_TOKEN}}');
  expect((await api.post('/api/config/apply', documentWith(['BILLING_TOKEN']))).status).toBeGreaterThanOrEqual(400);

  await api.post('/api/secrets', { name: 'BILLING_TOKEN', value: 'value-4b7d' });
  const planned = await api.post('/api/config/plan', documentWith(['BILLING_TOKEN']));
  expect(planned.status).toBe(200);
  expect(JSON.stringify(planned.body)).not.toContain('no secret named');
  expect((await api.post('/api/config/apply', documentWith(['BILLING_TOKEN']))).status).toBe(200);

  const exported = await api.get('/api/config/export');
  expect(exported.body.secrets).toEqual(['BILLING_TOKEN']);
  expect(JSON.stringify(exported.body)).not.toContain('value-4b7d');
});
