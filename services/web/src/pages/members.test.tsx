/**
 * Members, Audit and the invitation page against a mocked API client: an admin sees role selects,
 * removal and the invite form (the link shown once), pending invitations revoked; a viewer sees the
 * list alone; the invitation page reads the token from the #fragment and accepts it; the audit
 * filters go to the API as query parameters.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Client from '../api/client';
import type { Schemas } from '../api/client';
import { SESSION_KEY } from '../lib/session';
import { AcceptInvitationPage, invitationToken } from './accept-invitation';
import { AuditPage, localToIso } from './audit';
import { MembersPage } from './members';

const { get, post, patch, del } = vi.hoisted(() => ({ get: vi.fn(), post: vi.fn(), patch: vi.fn(), del: vi.fn() }));
vi.mock('../api/client', async (original) => ({
  ...(await original<typeof Client>()),
  api: { GET: get, POST: post, PATCH: patch, DELETE: del },
}));

afterEach(() => {
  cleanup();
  for (const mock of [get, post, patch, del]) mock.mockReset();
});

const at = '2026-11-23T22:00:00.000Z';
const ok = (data: unknown, status = 200, headers: Record<string, string> = {}) => ({
  data,
  response: new Response(null, { status, headers }),
});
const members: Schemas['Member'][] = [
  { userId: 'u1', email: 'alice@test.invalid', name: 'Alice', role: 'owner', createdAt: at },
  { userId: 'u2', email: 'bob@test.invalid', name: null, role: 'editor', createdAt: at },
];
const invitations: Schemas['Invitation'][] = [
  { id: 'i1', email: 'carol@test.invalid', role: 'viewer', expiresAt: at, createdAt: at, acceptedAt: null },
];

function session(memberRole: Schemas['CurrentSession']['memberRole']): Schemas['CurrentSession'] {
  return {
    user: { id: 'u1', email: 'alice@test.invalid', name: 'Alice', role: 'member' },
    account: { id: 'a1', name: 'Alice', tier: 'free' },
    memberRole,
    scope: 'write',
    accounts: [{ id: 'a1', name: 'Alice', role: memberRole }],
    authenticatedBy: 'session',
    csrfToken: 'c',
  };
}

function renderWith(element: ReactNode, role: Schemas['CurrentSession']['memberRole'], path = '/') {
  get.mockImplementation((url: string) => {
    if (url === '/api/account/members') return Promise.resolve(ok(members));
    if (url === '/api/account/invitations') return Promise.resolve(ok(invitations));
    if (url === '/api/auth/status') return Promise.resolve(ok({ signedIn: true, session: session(role) }));
    if (url === '/api/audit-events') return Promise.resolve(ok([], 200, { 'X-Total-Count': '0' }));
    return Promise.reject(new Error(`unexpected GET ${url}`));
  });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(SESSION_KEY, session(role));
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="*" element={element} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('members page', () => {
  it('lets an admin change a role, invite (the link shown once) and revoke an invitation', async () => {
    renderWith(<MembersPage />, 'admin');
    const bob = (await screen.findByText('bob@test.invalid')).closest('tr')!;
    // An admin does not touch an owner: no select, no removal on Alice's row.
    const alice = screen.getByText('Alice').closest('tr')!;
    expect(within(alice).queryByRole('combobox')).toBeNull();
    expect(within(alice).queryByRole('button')).toBeNull();

    patch.mockResolvedValueOnce(ok({ ...members[1], role: 'viewer' }));
    fireEvent.change(within(bob).getByLabelText('Role of bob@test.invalid'), { target: { value: 'viewer' } });
    await waitFor(() => expect(patch).toHaveBeenCalledTimes(1));
    expect(patch.mock.calls[0]![1]).toMatchObject({ params: { path: { userId: 'u2' } }, body: { role: 'viewer' } });
    // Owner is not offered to an admin.
    expect(within(bob).queryByRole('option', { name: /Owner/ })).toBeNull();

    post.mockResolvedValueOnce(
      ok(
        {
          ...invitations[0],
          id: 'i2',
          email: 'dan@test.invalid',
          role: 'editor',
          token: 'kinv_x',
          emailed: true,
          acceptUrl: 'https://k.test/invitations/accept#token=kinv_x',
        },
        201,
      ),
    );
    fireEvent.change(screen.getByLabelText('E-mail address'), { target: { value: 'dan@test.invalid' } });
    fireEvent.click(screen.getByRole('button', { name: 'Invite' }));
    const link = (await screen.findByLabelText('Invitation link')) as HTMLInputElement;
    expect(link.value).toBe('https://k.test/invitations/accept#token=kinv_x');
    expect(screen.getByText(/It was also sent by e-mail/)).toBeTruthy();
    expect(post.mock.calls[0]).toEqual([
      '/api/account/invitations',
      { body: { email: 'dan@test.invalid', role: 'editor' } },
    ]);

    del.mockResolvedValueOnce(ok(invitations[0]));
    const carol = (await screen.findByText('carol@test.invalid')).closest('tr')!;
    fireEvent.click(within(carol).getByRole('button', { name: 'Revoke the invitation for carol@test.invalid' }));
    await waitFor(() => expect(del).toHaveBeenCalledTimes(1));
    expect(del.mock.calls[0]![1]).toEqual({ params: { path: { invitationId: 'i1' } } });
  });

  it('shows a viewer the members and nothing to change', async () => {
    renderWith(<MembersPage />, 'viewer');
    const bob = (await screen.findByText('bob@test.invalid')).closest('tr')!;
    expect(within(bob).getByText('editor')).toBeTruthy();
    expect(screen.queryByRole('combobox')).toBeNull();
    expect(screen.queryByRole('button')).toBeNull();
    expect(screen.queryByLabelText('E-mail address')).toBeNull();
    expect(get).not.toHaveBeenCalledWith('/api/account/invitations', expect.anything());
  });
});

describe('invitation page', () => {
  it('reads the token from the fragment and accepts it', async () => {
    expect(invitationToken('#token=kinv_abc')).toBe('kinv_abc');
    expect(invitationToken('#other=1')).toBeNull();
    post.mockResolvedValueOnce(ok({ accountId: 'a2', role: 'editor' }));
    renderWith(<AcceptInvitationPage />, 'owner', '/invitations/accept#token=kinv_abc');
    fireEvent.click(await screen.findByRole('button', { name: 'Accept invitation' }));
    await waitFor(() => expect(post).toHaveBeenCalledWith('/api/invitations/accept', { body: { token: 'kinv_abc' } }));
  });

  it('says so when the link has no token', () => {
    renderWith(<AcceptInvitationPage />, 'owner', '/invitations/accept');
    expect(screen.getByText(/This invitation link is incomplete/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Accept invitation' })).toBeNull();
  });
});

describe('audit page', () => {
  it('sends the filters from the query string to the API', async () => {
    renderWith(<AuditPage />, 'admin', '/audit?actorType=user&targetType=endpoint&since=2026-11-01T00:00:00.000Z');
    expect(await screen.findByText('No events match.')).toBeTruthy();
    expect(get.mock.calls.find(([url]) => url === '/api/audit-events')![1]).toEqual({
      params: {
        query: {
          actorType: 'user',
          targetType: 'endpoint',
          since: '2026-11-01T00:00:00.000Z',
          limit: 50,
          offset: 0,
        },
      },
    });
    expect(localToIso('')).toBe('');
    expect(localToIso('not a time')).toBe('');
  });
});
