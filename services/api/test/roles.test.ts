/**
 * Roles × routes: every authenticated operation of /api/doc, called by an owner, an admin, an editor,
 * a viewer (each through a key of their own) and by the owner's read-scoped key: allowed, or
 * 403 FORBIDDEN naming the role (or the scope) it needs; a refused write changes no row.
 */
import { newId } from '@kairos/core';
import { addMembership } from '@kairos/db/system';
import { createApiKey } from '@kairos/db';
import {
  createApiHarness,
  createRouteResources,
  endpointInput,
  type ApiClient,
  type ApiHarness,
  type ApiMethod,
  type TestAccount,
} from '../../../test/api.js';

type Role = 'owner' | 'admin' | 'editor' | 'viewer';
const RANK: Record<Role, number> = { owner: 3, admin: 2, editor: 1, viewer: 0 };

/**
 * The product's policy, written out: reads are for every member, writes for editors, and these
 * operations need more (or less) than that.
 */
const LEAST_ROLE: Record<string, Role> = {
  // Credentials, settings, notifications, audit, the configuration as a whole: admins.
  createApiKey: 'admin',
  revokeApiKey: 'admin',
  createSigningKey: 'admin',
  rotateSigningKey: 'admin',
  revealSigningKey: 'admin',
  revokePreviousSigningKey: 'admin',
  updateAccountSettings: 'admin',
  listAuditEvents: 'admin',
  createNotificationChannel: 'admin',
  deleteNotificationChannel: 'admin',
  testNotificationChannel: 'admin',
  applyConfig: 'admin',
  revokeDevice: 'admin',
  createSecret: 'admin',
  updateSecret: 'admin',
  deleteSecret: 'admin',
  // Writes that change nothing of the account's data: every member.
  planConfig: 'viewer',
  backtestEndpoint: 'viewer',
  // Members: admins change them and invite; joining and switching is every member's own.
  updateMember: 'admin',
  removeMember: 'admin',
  createInvitation: 'admin',
  listInvitations: 'admin',
  deleteInvitation: 'admin',
  switchAccount: 'viewer',
  acceptInvitation: 'viewer',
};

const future = () => new Date(Date.now() + 60 * 60_000).toISOString();
const SAMPLE_BODIES: Record<string, () => unknown> = {
  createJob: () => ({ name: 'sample' }),
  updateJob: () => ({ name: 'changed' }),
  createEndpoint: () => endpointInput(),
  updateEndpoint: () => ({ name: 'changed' }),
  pauseEndpoint: () => ({ pausedUntil: future(), reason: 'sample' }),
  applyIntervalHint: () => ({ intervalMs: 120_000, ttlMinutes: 30, reason: 'sample' }),
  scheduleOneShot: () => ({ nextRunAt: future(), ttlMinutes: 30, reason: 'sample' }),
  runEndpointNow: () => ({}),
  backfillEndpoint: () => ({
    from: new Date(Date.now() - 3_600_000).toISOString(),
    to: new Date(Date.now() - 60_000).toISOString(),
  }),
  createApiKey: () => ({ name: 'sample' }),
  updateAccountSettings: () => ({ aiSchedulingEnabled: false }),
  createNotificationChannel: () => ({ name: 'sample', type: 'webhook', url: 'https://hooks.test.invalid/' }),
  applyConfig: () => ({ apiVersion: 'kairos/v1', jobs: [] }),
  createSecret: () => ({ name: 'SAMPLE', value: 'sample' }),
  updateSecret: () => ({ value: 'changed' }),
  updateMember: () => ({ role: 'viewer' }),
  createInvitation: () => ({ email: 'someone@example.test', role: 'viewer' }),
};

interface Operation {
  method: ApiMethod;
  path: string;
  operationId: string;
  role: Role;
}

let harness: ApiHarness;
let owner: TestAccount;
let clients: Record<Role | 'read key', ApiClient>;
let operations: Operation[];
let realIds: Record<string, string>;

const memberIds: Partial<Record<Role, string>> = {};

async function member(role: Exclude<Role, 'owner'>): Promise<ApiClient> {
  const person = await harness.createAccount();
  memberIds[role] = person.userId;
  await addMembership(harness.db, { userId: person.userId, accountId: owner.accountId, role });
  const key = await createApiKey(harness.db, owner.accountId, `${role} key`, person.userId);
  return harness.client(key.raw);
}

beforeAll(async () => {
  harness = await createApiHarness({ testRunGraceMs: 300 });
  owner = await harness.createAccount();
  const readKey = await createApiKey(harness.db, owner.accountId, 'read key', owner.userId, { scope: 'read' });
  clients = {
    owner: harness.client(owner.apiKey),
    admin: await member('admin'),
    editor: await member('editor'),
    viewer: await member('viewer'),
    'read key': harness.client(readKey.raw),
  };
  const resources = await createRouteResources(harness, owner, {
    jobName: 'Roles',
    endpointTimeoutMs: 500,
    deviceClientName: 'roles',
  });
  await clients.owner.post('/api/secrets', { name: 'SHARED', value: 'value' });
  const invitation = await clients.owner.post('/api/account/invitations', { email: 'x@example.test', role: 'editor' });
  realIds = {
    ...resources.ids,
    keyId: owner.apiKeyId,
    accountId: owner.accountId,
    name: 'SHARED',
    userId: memberIds.editor!,
    invitationId: invitation.body.id,
  };
  const document = (await harness.http.get('/api/doc')).body as {
    paths: Record<string, Record<string, { operationId: string; security?: unknown[]; 'x-kairos-role'?: Role }>>;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, operation]) => !(Array.isArray(operation.security) && operation.security.length === 0))
      .map(([method, operation]) => ({
        method: method as Operation['method'],
        path,
        operationId: operation.operationId,
        role: operation['x-kairos-role']!,
      })),
  );
});
afterAll(() => harness.close());

const pathWith = (path: string, ids: (name: string) => string) =>
  path.replace(/\{([A-Za-z]+)\}/g, (_, name: string) => ids(name));

function call(client: ApiClient, operation: Operation, path: string) {
  return client.request(operation.method, path, SAMPLE_BODIES[operation.operationId]?.() ?? {});
}

const expectedRole = (operation: Operation): Role =>
  LEAST_ROLE[operation.operationId] ?? (operation.method === 'get' ? 'viewer' : 'editor');

/** Every table's content (touch timestamps aside), as one digest per table. */
async function digest(): Promise<Record<string, string>> {
  const tables = await harness.db.prisma.$queryRaw<{ name: string }[]>`
    SELECT table_name::text AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'`;
  const result: Record<string, string> = {};
  for (const { name } of tables) {
    const [row] = await harness.db.prisma.$queryRawUnsafe<{ digest: string | null }[]>(
      `SELECT md5(string_agg((to_jsonb(t) - 'lastUsedAt' - 'lastSeenAt')::text, '|' ORDER BY (to_jsonb(t) - 'lastUsedAt' - 'lastSeenAt')::text)) AS digest FROM "${name}" t`,
    );
    result[name] = row?.digest ?? '';
  }
  return result;
}

describe('role × route matrix', () => {
  it('lists every authenticated operation with its least role, as the policy says', () => {
    expect(operations.length).toBeGreaterThan(40);
    const mismatched = operations
      .filter((operation) => operation.role !== expectedRole(operation))
      .map((operation) => `${operation.operationId}: documented ${operation.role}, policy ${expectedRole(operation)}`);
    expect(mismatched).toEqual([]);
  });

  it('allows each role exactly the operations at or below it; a read key as a viewer', async () => {
    const wrong: string[] = [];
    for (const [who, client] of Object.entries(clients) as [Role | 'read key', ApiClient][]) {
      for (const operation of operations) {
        // Unknown ids: an allowed write answers 404 or 400 and changes nothing of the fixtures.
        const response = await call(
          client,
          operation,
          pathWith(operation.path, () => newId()),
        );
        const details = response.body?.error?.details as Record<string, unknown> | undefined;
        const refused =
          response.status === 403 && response.body.error.code === 'FORBIDDEN' && details?.requiredRole !== undefined;
        const role: Role = who === 'read key' ? 'viewer' : who; // a read key acts as a viewer
        const shouldRefuse = RANK[role] < RANK[expectedRole(operation)];
        if (refused !== shouldRefuse) {
          wrong.push(
            `${who} ${operation.method.toUpperCase()} ${operation.path}: ${response.status} ${JSON.stringify(response.body)}`,
          );
        }
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  it("refuses a viewer's and a read key's writes on the account's real resources, changing no row", async () => {
    // Touch the keys first (lastUsedAt is written once a minute, outside the digest anyway).
    await clients.viewer.get('/api/jobs');
    await clients['read key'].get('/api/jobs');
    const before = await digest();
    const writes = operations.filter((operation) => operation.method !== 'get');
    for (const who of ['viewer', 'read key'] as const) {
      for (const operation of writes.filter((op) => expectedRole(op) !== 'viewer')) {
        const response = await call(
          clients[who],
          operation,
          pathWith(operation.path, (name) => realIds[name] ?? newId()),
        );
        expect([operation.operationId, response.status, response.body.error?.code]).toEqual([
          operation.operationId,
          403,
          'FORBIDDEN',
        ]);
      }
    }
    expect(await digest()).toEqual(before);
  }, 120_000);
});

describe('memberships', () => {
  it('makes a user inserted without one (by a replica that predates memberships) the owner of its account', async () => {
    const account = await harness.createAccount();
    const userId = newId();
    await harness.db.prisma.$executeRaw`
      INSERT INTO users (id, "accountId", email, "updatedAt") VALUES (${userId}::uuid, ${account.accountId}::uuid, ${`${userId}@example.test`}, now())`;
    const memberships = await harness.db.prisma.membership.findMany({ where: { userId } });
    expect(memberships.map(({ accountId, role }) => ({ accountId, role }))).toEqual([
      { accountId: account.accountId, role: 'owner' },
    ]);
  });
});
