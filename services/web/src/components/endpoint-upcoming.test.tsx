import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Client from '../api/client';
import type { Schemas } from '../api/client';
import { EndpointUpcomingRuns } from './endpoint-upcoming';

const get = vi.hoisted(() => vi.fn());
vi.mock('../api/client', async (original) => ({
  ...(await original<typeof Client>()),
  api: { GET: get },
}));

afterEach(() => {
  cleanup();
  get.mockReset();
});

function renderList(result: Schemas['UpcomingRuns']) {
  get.mockResolvedValue({ data: result, response: new Response(null, { status: 200 }) });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, refetchInterval: false } } });
  return render(
    <QueryClientProvider client={client}>
      <EndpointUpcomingRuns endpointId="e1" />
    </QueryClientProvider>,
  );
}

describe('EndpointUpcomingRuns', () => {
  it('asks for the next 5 runs and lists them in order with their source, under a "Next runs" heading', async () => {
    const at = (minutes: number) => new Date(Date.UTC(2030, 0, 1, 12, minutes)).toISOString();
    renderList({
      runs: [
        { at: at(1), source: 'ai-oneshot', calendar: null },
        { at: at(2), source: 'baseline-interval', calendar: { kind: 'blackout', index: 2, from: at(0), to: at(2) } },
      ],
      jitterMs: 0,
    });
    const list = await screen.findByRole('list');
    const items = within(list).getAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(items[0]!.querySelector('time')!.getAttribute('dateTime')).toBe(at(1));
    expect(items[0]!.textContent).toContain('AI one-shot hint');
    expect(items[0]!.textContent).not.toContain('blackout');
    expect(items[1]!.textContent).toContain('after blackout window 3');
    expect(screen.getByRole('region', { name: 'Next runs' })).toBeTruthy();
    expect(get).toHaveBeenCalledWith('/api/endpoints/{endpointId}/upcoming', {
      params: { path: { endpointId: 'e1' }, query: { count: 5 } },
    });
    expect(screen.queryByText(/Jitter/)).toBeNull();
  });

  it('says when nothing is planned, and notes jitter', async () => {
    renderList({ runs: [], jitterMs: 0 });
    expect(await screen.findByText('No runs planned.')).toBeTruthy();
    cleanup();
    renderList({ runs: [{ at: new Date().toISOString(), source: 'baseline-cron', calendar: null }], jitterMs: 5000 });
    expect(await screen.findByText(/up to 5000 ms later/)).toBeTruthy();
  });
});
