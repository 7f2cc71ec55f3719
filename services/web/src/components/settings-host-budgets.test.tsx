/**
 * Settings > Host budgets against a mocked API client: the stored limits shown as rows, a row added
 * and saved as the API expects it, a bad row held back with its words, a row removed.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Client from '../api/client';
import { HostBudgetSettings, ROW_WORDS, rowLimit } from './settings-host-budgets';

const { get, patch } = vi.hoisted(() => ({ get: vi.fn(), patch: vi.fn() }));
vi.mock('../api/client', async (original) => ({
  ...(await original<typeof Client>()),
  api: { GET: get, PATCH: patch },
}));

afterEach(() => {
  cleanup();
  get.mockReset();
  patch.mockReset();
});

const ok = (data: unknown, status = 200) => ({ data, response: new Response(null, { status }) });
const account = (hostLimits: unknown[]) => ({ id: 'a1', settings: { hostLimits } });

function renderSection() {
  return render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <HostBudgetSettings />
    </QueryClientProvider>,
  );
}

describe('HostBudgetSettings', () => {
  it('shows the stored limits, adds a host and saves the list as the API takes it', async () => {
    get.mockResolvedValue(ok(account([{ host: 'api.example.com', maxPerSecond: 5, maxConcurrent: 2 }])));
    patch.mockResolvedValue(ok(account([])));
    renderSection();
    const first = await screen.findByRole('group', { name: 'Host 1' });
    expect((within(first).getByLabelText('Host') as HTMLInputElement).value).toBe('api.example.com');
    expect((within(first).getByLabelText('Calls per second') as HTMLInputElement).value).toBe('5');
    expect((within(first).getByLabelText('Calls at once') as HTMLInputElement).value).toBe('2');
    fireEvent.click(screen.getByRole('button', { name: 'Add a host' }));
    const second = screen.getByRole('group', { name: 'Host 2' });
    fireEvent.change(within(second).getByLabelText('Host'), { target: { value: '127.0.0.1:8080' } });
    fireEvent.change(within(second).getByLabelText('Calls at once'), { target: { value: '1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save host budgets' }));
    await waitFor(() => expect(patch).toHaveBeenCalledTimes(1));
    expect(patch.mock.calls[0]![1]).toEqual({
      body: {
        hostLimits: [
          { host: 'api.example.com', maxPerSecond: 5, maxConcurrent: 2 },
          { host: '127.0.0.1:8080', maxConcurrent: 1 },
        ],
      },
    });
  });

  it('holds back a row without a limit, and removes a row', async () => {
    get.mockResolvedValue(ok(account([{ host: 'a.example.com', maxPerSecond: 1 }])));
    patch.mockResolvedValue(ok(account([])));
    renderSection();
    await screen.findByRole('group', { name: 'Host 1' });
    fireEvent.click(screen.getByRole('button', { name: 'Add a host' }));
    fireEvent.change(within(screen.getByRole('group', { name: 'Host 2' })).getByLabelText('Host'), {
      target: { value: 'b.example.com' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save host budgets' }));
    expect(await screen.findByText(ROW_WORDS)).toBeTruthy();
    expect(patch).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Remove host 2' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save host budgets' }));
    await waitFor(() => expect(patch).toHaveBeenCalledTimes(1));
    expect(patch.mock.calls[0]![1]).toEqual({ body: { hostLimits: [{ host: 'a.example.com', maxPerSecond: 1 }] } });
  });
});

describe('rowLimit', () => {
  it.each([
    [{ host: 'API.example.com', perSecond: '1', atOnce: '' }],
    [{ host: 'a.example.com/v1', perSecond: '1', atOnce: '' }],
    [{ host: 'a.example.com', perSecond: '0', atOnce: '' }],
    [{ host: 'a.example.com', perSecond: '', atOnce: '1.5' }],
    [{ host: '', perSecond: '1', atOnce: '' }],
  ])('refuses %j', (row) => {
    expect(rowLimit(row)).toBeNull();
  });
});
