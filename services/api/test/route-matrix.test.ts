/**
 * Every registered route, driven from the RouteRegistry (a new route is covered without editing
 * this file, unless it needs a sample body):
 * - isolation: account B calls every route with account A's ids → 404 (403 on operator routes),
 *   and none of A's data changes;
 * - bearer tokens from the device flow are accepted on every authenticated route but the ones that
 *   manage credentials (API keys, devices, device approvals: 403 FORBIDDEN there).
 */
import {
  createApiHarness,
  createRouteResources,
  endpointInput,
  type ApiClient,
  type ApiHarness,
  type ApiMethod,
  type TestAccount,
} from '../../../test/api.js';

const future = () => new Date(Date.now() + 60 * 60_000).toISOString();

/** A valid body per operationId (validation runs before the handler: an invalid body would prove nothing). */
const SAMPLE_BODIES: Record<string, () => unknown> = {
  createJob: () => ({ name: 'sample' }),
  updateJob: () => ({ name: 'stolen' }),
  createEndpoint: () => endpointInput(),
  updateEndpoint: () => ({ name: 'stolen' }),
  pauseEndpoint: () => ({ pausedUntil: future(), reason: 'sample' }),
  applyIntervalHint: () => ({ intervalMs: 120_000, ttlMinutes: 30, reason: 'sample' }),
  scheduleOneShot: () => ({ nextRunAt: future(), ttlMinutes: 30, reason: 'sample' }),
  backtestEndpoint: () => ({ rules: [{ name: 'sample', when: {}, then: { analyse: true } }] }),
  previewUpcomingRuns: () => ({ baselineIntervalMs: 120_000 }),
  runEndpointNow: () => ({}),
  backfillEndpoint: () => ({
    from: new Date(Date.now() - 3_600_000).toISOString(),
    to: new Date(Date.now() - 60_000).toISOString(),
  }),
  createApiKey: () => ({ name: 'sample' }),
  approveDevice: () => ({ user_code: 'BBBB-BBBB' }),
  denyDevice: () => ({ user_code: 'BBBB-BBBB' }),
  adminUpdateAccount: () => ({ tier: 'enterprise' }),
  updateAccountSettings: () => ({ aiSchedulingEnabled: false }),
  createNotificationChannel: () => ({ name: 'sample', type: 'webhook', url: 'https://hooks.test.invalid/' }),
  planConfig: () => ({ apiVersion: 'kairos/v1', jobs: [] }),
  applyConfig: () => ({ apiVersion: 'kairos/v1', jobs: [] }),
  createSecret: () => ({ name: 'SAMPLE', value: 'sample' }),
  updateSecret: () => ({ value: 'changed' }),
  updateMember: () => ({ role: 'owner' }),
  createInvitation: () => ({ email: 'sample@example.test', role: 'viewer' }),
  acceptInvitation: () => ({ token: 'kinv_unknown' }),
  switchAccount: () => ({ accountId: '01a22431-62b7-700b-a405-47a494a1ee99' }),
};

let harness: ApiHarness;
let alice: TestAccount;
let bob: TestAccount;
let aliceIds: Record<string, string>;
let aliceToken: string;

beforeAll(async () => {
  // "Test now" has no executor here: keep its wait short (it answers 503).
  harness = await createApiHarness({ testRunGraceMs: 300 });
  alice = await harness.createAccount({ operator: true });
  bob = await harness.createAccount();
  const resources = await createRouteResources(harness, alice, {
    jobName: "Alice's job",
    endpointTimeoutMs: 500,
    deviceClientName: 'matrix',
  });
  aliceToken = resources.accessToken;
  await harness.client(alice.apiKey).post('/api/secrets', { name: 'ALICE', value: 'hers' });
  const invitation = await harness
    .client(alice.apiKey)
    .post('/api/account/invitations', { email: 'guest@example.test', role: 'viewer' });
  aliceIds = {
    ...resources.ids,
    keyId: alice.apiKeyId,
    accountId: alice.accountId,
    name: 'ALICE',
    userId: alice.userId,
    invitationId: invitation.body.id,
  };
});
afterAll(() => harness.close());

function authenticatedRoutes() {
  return harness.routes.routes.map(({ spec }) => spec).filter((spec) => !spec.public);
}

function pathWith(path: string, ids: Record<string, string>): string {
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const id = ids[name];
    if (!id) throw new Error(`route-matrix.test.ts: no id of account A for path parameter :${name}; add one`);
    return id;
  });
}

function call(
  client: ApiClient,
  spec: { method: ApiMethod; path: string; operationId: string; body?: unknown },
  path: string,
) {
  const sample = SAMPLE_BODIES[spec.operationId];
  if (spec.body && !sample) throw new Error(`route-matrix.test.ts: add a sample body for ${spec.operationId}`);
  return client.request(spec.method, path, sample?.());
}

async function snapshotOf(accountId: string) {
  const where = { where: { accountId }, orderBy: { id: 'asc' as const } };
  const withoutLastUsed = <T extends { lastUsedAt: Date | null }>(rows: T[]) =>
    rows.map(({ lastUsedAt: _ignored, ...row }) => row);
  return {
    account: await harness.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } }),
    jobs: await harness.db.prisma.job.findMany(where),
    endpoints: await harness.db.prisma.endpoint.findMany(where),
    runs: await harness.db.prisma.run.findMany(where),
    sessions: await harness.db.prisma.analysisSession.findMany(where),
    apiKeys: withoutLastUsed(await harness.db.prisma.apiKey.findMany(where)),
    accessTokens: withoutLastUsed(await harness.db.prisma.accessToken.findMany(where)),
    signingKey: await harness.db.prisma.signingKey.findUnique({ where: { accountId } }),
    auditEvents: await harness.db.prisma.auditEvent.count({ where: { accountId } }),
    users: await harness.db.prisma.user.findMany({ where: { accountId } }),
    secrets: await harness.db.prisma.secret.findMany(where),
    memberships: await harness.db.prisma.membership.findMany({ where: { accountId }, orderBy: { userId: 'asc' } }),
    invitations: await harness.db.prisma.invitation.findMany(where),
  };
}

describe('isolation matrix', () => {
  it("gives account B 404 on every route with account A's ids (403 on operator routes), changing nothing", async () => {
    const bobApi = harness.client(bob.apiKey);
    const before = await snapshotOf(alice.accountId);
    const outcomes: { route: string; status: number; code: string | undefined }[] = [];
    const withIds = authenticatedRoutes().filter((spec) => spec.path.includes(':'));
    expect(withIds.length).toBeGreaterThanOrEqual(20);
    for (const spec of withIds) {
      const response = await call(bobApi, spec, pathWith(spec.path, aliceIds));
      outcomes.push({
        route: `${spec.method.toUpperCase()} ${spec.path}`,
        status: response.status,
        code: response.body?.error?.code,
      });
    }
    const expected = outcomes.map(({ route }) =>
      route.includes('/api/admin/')
        ? { route, status: 403, code: 'FORBIDDEN' }
        : { route, status: 404, code: 'NOT_FOUND' },
    );
    expect(outcomes).toEqual(expected);

    // Routes without ids act on B's own data only.
    for (const spec of authenticatedRoutes().filter((route) => !route.path.includes(':'))) {
      await call(bobApi, spec, spec.path);
    }
    expect(await snapshotOf(alice.accountId)).toEqual(before);
  }, 60_000);
});

/** Credential management: a device access token gets 403 there (device-token-scope.test.ts). */
const REFUSED_TO_ACCESS_TOKENS = [
  'POST /api/api-keys',
  'GET /api/api-keys',
  'DELETE /api/api-keys/:keyId',
  'POST /api/auth/device/approve',
  'POST /api/auth/device/deny',
  'GET /api/devices',
];

describe('bearer access tokens', () => {
  it('are accepted on every authenticated route but credential management', async () => {
    const bearer = harness.bearerClient(aliceToken);
    // Revoking the token itself goes last, so every other route still sees a live token.
    const routes = authenticatedRoutes().sort(
      (a, b) => Number(a.operationId === 'revokeDevice') - Number(b.operationId === 'revokeDevice'),
    );
    const refused: string[] = [];
    const refusedAsExpected: string[] = [];
    for (const spec of routes) {
      const response = await call(bearer, spec, pathWith(spec.path, aliceIds));
      const route = `${spec.method.toUpperCase()} ${spec.path}`;
      if (REFUSED_TO_ACCESS_TOKENS.includes(route) && response.status === 403) {
        expect(response.body.error.code).toBe('FORBIDDEN');
        refusedAsExpected.push(route);
      } else if (response.status === 401 || response.status === 403) {
        refused.push(`${route}: ${response.status} ${JSON.stringify(response.body)}`);
      }
    }
    expect(refused).toEqual([]);
    expect(refusedAsExpected.sort()).toEqual([...REFUSED_TO_ACCESS_TOKENS].sort());
    const viaToken = await harness.db.prisma.auditEvent.count({
      where: { accountId: alice.accountId, actorType: 'access_token', actorId: aliceIds.tokenId },
    });
    expect(viaToken).toBeGreaterThan(5);
    expect((await bearer.get('/api/jobs')).status).toBe(401); // revoked by the last route
  }, 60_000);
});
