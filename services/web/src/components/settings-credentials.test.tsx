/** The API key and connected device tables (rendering only: the lists are seeded, nothing is sent). */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import type { Schemas } from '../api/client';
import { ApiKeysSettings } from './settings-api-keys';
import { DevicesSettings } from './settings-devices';

afterEach(cleanup);

const HOUR_MS = 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

function renderSeeded(queryKey: string, list: unknown[], ui: React.ReactNode) {
  // staleTime Infinity: the seeded list is fresh, so the component never fetches.
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  client.setQueryData([queryKey], list);
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter>{ui}</MemoryRouter>
    </QueryClientProvider>,
  );
}

const cellTexts = (row: HTMLElement) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent?.trim());

describe('API keys table', () => {
  const keys: Schemas['ApiKey'][] = [
    {
      id: 'k1',
      name: 'Deploy',
      prefix: 'kairos_ab',
      createdAt: ago(2 * HOUR_MS),
      lastUsedAt: null,
      revokedAt: null,
      scope: 'write',
      expiresAt: null,
    },
    {
      id: 'k2',
      name: 'Old script',
      prefix: 'kairos_cd',
      createdAt: ago(48 * HOUR_MS),
      lastUsedAt: ago(30 * HOUR_MS),
      revokedAt: ago(HOUR_MS),
      scope: 'read',
      expiresAt: null,
    },
  ];

  it('lists live keys with a Revoke button and folds revoked ones away with their date', () => {
    renderSeeded('api-keys', keys, <ApiKeysSettings />);
    const live = screen.getByRole('table', { name: 'Active API keys' });
    const [head, row, ...rest] = within(live).getAllByRole('row');
    expect(rest).toEqual([]);
    expect(cellTexts(head!)).toEqual(['Name', 'Prefix', 'Created', 'Last used', 'Actions']);
    expect(cellTexts(row!).slice(0, 4)).toEqual(['Deploy', 'kairos_ab…', '2 h ago', 'Never']);
    // Named by its row: a list of buttons tells the keys apart.
    expect(within(row!).getByRole('button', { name: 'Revoke Deploy' })).toBeTruthy();

    const revoked = screen.getByRole('table', { name: 'Revoked API keys', hidden: true });
    const [, revokedRow] = within(revoked).getAllByRole('row', { hidden: true });
    expect(within(revokedRow!).queryByRole('button', { hidden: true })).toBeNull();
    expect(revokedRow!.textContent).toContain('Revoked');
    expect(revokedRow!.textContent).toContain('Old script (read only)');
    expect(screen.getByText('Revoked keys (1)')).toBeTruthy();
  });
});

describe('connected devices table', () => {
  const devices: Schemas['ConnectedDevice'][] = [
    {
      id: 't1',
      name: 'kairos CLI',
      prefix: 'kat_ef',
      createdAt: ago(3 * HOUR_MS),
      lastUsedAt: ago(HOUR_MS),
      expiresAt: new Date(Date.now() + 72 * HOUR_MS).toISOString(),
      revokedAt: null,
    },
  ];

  it('lists each device with its expiry and a Revoke button', () => {
    renderSeeded('devices', devices, <DevicesSettings />);
    const table = screen.getByRole('table', { name: 'Connected devices' });
    const [head, row] = within(table).getAllByRole('row');
    expect(cellTexts(head!)).toEqual(['Name', 'Prefix', 'Connected', 'Last used', 'Expires', 'Actions']);
    expect(cellTexts(row!).slice(0, 5)).toEqual(['kairos CLI', 'kat_ef…', '3 h ago', '1 h ago', 'in 3 d']);
    expect(within(row!).getByRole('button', { name: 'Revoke kairos CLI' })).toBeTruthy();
  });

  it('explains the device flow when there are none', () => {
    renderSeeded('devices', [], <DevicesSettings />);
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.getByText('No connected devices.')).toBeTruthy();
  });
});
