import { createApiHarness, endpointInput, type ApiClient, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
let alice: ApiClient;
let bob: ApiClient;

beforeAll(async () => {
  harness = await createApiHarness();
  alice = harness.client((await harness.createAccount()).apiKey);
  bob = harness.client((await harness.createAccount()).apiKey);
});
afterAll(() => harness.close());

describe('tenancy', () => {
  it("another account sees none of an account's data and changes nothing", async () => {
    const job = (await alice.post('/api/jobs', { name: "Alice's job" })).body;
    const endpoint = (await alice.post(`/api/jobs/${job.id}/endpoints`, endpointInput())).body;
    const snapshot = async () => ({
      job: await harness.db.prisma.job.findUniqueOrThrow({ where: { id: job.id } }),
      endpoint: await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpoint.id } }),
      endpoints: await harness.db.prisma.endpoint.count({ where: { jobId: job.id } }),
    });
    const before = await snapshot();

    const attempts: [string, () => Promise<{ status: number; body: { error?: { code: string } } }>][] = [
      ['GET job', () => bob.get(`/api/jobs/${job.id}`)],
      ['PATCH job', () => bob.patch(`/api/jobs/${job.id}`, { name: 'stolen' })],
      ['archive job', () => bob.post(`/api/jobs/${job.id}/archive`)],
      ['pause job', () => bob.post(`/api/jobs/${job.id}/pause`)],
      ['resume job', () => bob.post(`/api/jobs/${job.id}/resume`)],
      ['add endpoint', () => bob.post(`/api/jobs/${job.id}/endpoints`, endpointInput())],
      ['list endpoints', () => bob.get(`/api/jobs/${job.id}/endpoints`)],
      ['GET endpoint under job', () => bob.get(`/api/jobs/${job.id}/endpoints/${endpoint.id}`)],
      ['GET endpoint', () => bob.get(`/api/endpoints/${endpoint.id}`)],
      ['PATCH endpoint', () => bob.patch(`/api/jobs/${job.id}/endpoints/${endpoint.id}`, { name: 'stolen' })],
      ['archive endpoint', () => bob.post(`/api/jobs/${job.id}/endpoints/${endpoint.id}/archive`)],
    ];
    for (const [name, attempt] of attempts) {
      const response = await attempt();
      expect({ name, status: response.status, code: response.body.error?.code }).toEqual({
        name,
        status: 404,
        code: 'NOT_FOUND',
      });
    }

    // Bob's own job cannot reach Alice's endpoint either.
    const bobJob = (await bob.post('/api/jobs', { name: "Bob's job" })).body;
    expect((await bob.get(`/api/jobs/${bobJob.id}/endpoints/${endpoint.id}`)).status).toBe(404);
    expect((await bob.post(`/api/jobs/${bobJob.id}/endpoints/${endpoint.id}/archive`)).status).toBe(404);

    expect((await bob.get('/api/jobs')).body.map((item: { id: string }) => item.id)).toEqual([bobJob.id]);
    expect(await snapshot()).toEqual(before);
  });
});
