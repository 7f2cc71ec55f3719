/** Settings > Signing key > Rotation grace window: what it shows with and without a running window (rendering only). */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Schemas } from '../api/client';
import { GRACE_MAX_MINUTES, SigningKeyGraceWindow } from './settings-signing-grace';

afterEach(cleanup);

function info(overrides: Partial<Schemas['SigningKeyInfo']> = {}): Schemas['SigningKeyInfo'] {
  return {
    hasKey: true,
    keyPrefix: 'abcdef12',
    createdAt: '2026-11-20T10:00:00.000Z',
    rotatedAt: null,
    previousKeyPrefix: null,
    previousExpiresAt: null,
    revealedAt: '2026-11-20T10:00:00.000Z',
    ...overrides,
  };
}

const renderWindow = (key: Schemas['SigningKeyInfo']) =>
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <SigningKeyGraceWindow info={key} signingKeyQuery={['signing-key']} />
    </QueryClientProvider>,
  );

describe('SigningKeyGraceWindow', () => {
  it('offers the grace minutes field (0 to 7 days) and no revoke button without a previous key', () => {
    renderWindow(info());
    const field = screen.getByLabelText('Grace window (minutes)');
    expect(field.getAttribute('min')).toBe('0');
    expect(field.getAttribute('max')).toBe(String(GRACE_MAX_MINUTES));
    expect(GRACE_MAX_MINUTES).toBe(7 * 24 * 60);
    expect(screen.queryByRole('button', { name: 'Revoke previous key now' })).toBeNull();
  });

  it('while a window runs: the previous key, when it stops signing, and the revoke button', () => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const { container } = renderWindow(
      info({ rotatedAt: new Date().toISOString(), previousKeyPrefix: '99887766', previousExpiresAt: expiresAt }),
    );
    expect(screen.getByText('99887766…')).toBeTruthy();
    expect(container.querySelector(`time[datetime="${expiresAt}"]`)).not.toBeNull();
    expect(screen.getByRole('button', { name: 'Revoke previous key now' })).toBeTruthy();
  });
});
