/**
 * Settings > Signing key against a mocked API client: a key never shown (an account created at
 * sign-in) is revealed once on the first visit, with a Copy button and the "not shown again" note;
 * a key already shown is never asked for; a 409 (another tab was first) shows nothing and no error.
 * Rendered in StrictMode, whose double effect must not ask twice.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { StrictMode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Client from '../api/client';
import type { Schemas } from '../api/client';
import { SigningKeySettings } from './settings-signing-key';

const { get, post } = vi.hoisted(() => ({ get: vi.fn(), post: vi.fn() }));
vi.mock('../api/client', async (original) => ({
  ...(await original<typeof Client>()),
  api: { GET: get, POST: post },
}));

afterEach(() => {
  cleanup();
  get.mockReset();
  post.mockReset();
});

const RAW_KEY = 'ab12cd34'.repeat(8);
const CREATED_AT = '2026-11-23T22:00:00.000Z';
const ok = (data: unknown, status = 200) => ({ data, response: new Response(null, { status }) });

function info(revealedAt: string | null): Schemas['SigningKeyInfo'] {
  return {
    hasKey: true,
    keyPrefix: RAW_KEY.slice(0, 8),
    createdAt: CREATED_AT,
    rotatedAt: null,
    previousKeyPrefix: null,
    previousExpiresAt: null,
    revealedAt,
  };
}

/** The section, with the server's revealedAt: set by the first reveal call, as the api does. */
function renderSection(options: { revealedAt: string | null; revealAnswer?: 'key' | 'conflict' }) {
  let revealedAt = options.revealedAt;
  get.mockImplementation((path: string) => {
    if (path === '/api/signing-keys') return Promise.resolve(ok(info(revealedAt)));
    if (path === '/api/account') return Promise.resolve(ok({ settings: { signingKeyGraceMinutes: 0 } }));
    return Promise.reject(new Error(`unexpected GET ${path}`));
  });
  post.mockImplementation((path: string) => {
    if (path !== '/api/signing-keys/reveal') return Promise.reject(new Error(`unexpected POST ${path}`));
    if (options.revealAnswer === 'conflict' || revealedAt !== null) {
      return Promise.resolve({
        error: { error: { code: 'CONFLICT', message: 'the signing key was already shown' } },
        response: new Response(null, { status: 409 }),
      });
    }
    revealedAt = '2026-11-23T22:05:00.000Z';
    const issued: Schemas['IssuedSigningKey'] = {
      rawKey: RAW_KEY,
      keyPrefix: RAW_KEY.slice(0, 8),
      createdAt: CREATED_AT,
      rotatedAt: null,
      previousKeyPrefix: null,
      previousExpiresAt: null,
    };
    return Promise.resolve(ok(issued));
  });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <StrictMode>
      <QueryClientProvider client={client}>
        <SigningKeySettings />
      </QueryClientProvider>
    </StrictMode>,
  );
}

const revealCalls = () => post.mock.calls.filter(([path]) => path === '/api/signing-keys/reveal').length;

describe('signing key settings', () => {
  it('shows a key never shown once on the first visit, with Copy and the "not shown again" note', async () => {
    renderSection({ revealedAt: null });
    const secret = await screen.findByRole('group', { name: 'Your signing key' });
    expect(within(secret).getByText(RAW_KEY)).toBeTruthy();
    expect(within(secret).getByText(/will not be shown again/)).toBeTruthy();
    expect(within(secret).getByText(/Store it now/)).toBeTruthy();
    expect(within(secret).getByRole('button', { name: 'Copy' })).toBeTruthy();
    expect(revealCalls()).toBe(1);

    fireEvent.click(within(secret).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('group', { name: 'Your signing key' })).toBeNull());
    expect(screen.queryByText(RAW_KEY)).toBeNull();
    expect(revealCalls()).toBe(1);
  });

  it('does not ask for a key that was already shown', async () => {
    renderSection({ revealedAt: CREATED_AT });
    await screen.findByText(`${RAW_KEY.slice(0, 8)}…`);
    expect(screen.queryByRole('group', { name: 'Your signing key' })).toBeNull();
    expect(revealCalls()).toBe(0);
  });

  it('shows nothing and no error when another tab was shown the key first (409)', async () => {
    renderSection({ revealedAt: null, revealAnswer: 'conflict' });
    await waitFor(() => expect(revealCalls()).toBe(1));
    await screen.findByText(`${RAW_KEY.slice(0, 8)}…`);
    expect(screen.queryByRole('group', { name: 'Your signing key' })).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
