import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Client from '../api/client';
import type { Schemas } from '../api/client';
import { AnalysisSessionsList } from './analysis-sessions-list';

const get = vi.hoisted(() => vi.fn());
vi.mock('../api/client', async (original) => ({
  ...(await original<typeof Client>()),
  api: { GET: get },
}));

afterEach(() => {
  cleanup();
  get.mockReset();
});

function renderList(page: Schemas['AnalysisSessionsPage'], currentSessionId?: string) {
  get.mockResolvedValue({ data: page, response: new Response(null, { status: 200 }) });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, refetchInterval: false } } });
  const wrap = (children: ReactNode) => (
    <QueryClientProvider client={client}>
      <MemoryRouter>{children}</MemoryRouter>
    </QueryClientProvider>
  );
  return render(wrap(<AnalysisSessionsList endpointId="e1" currentSessionId={currentSessionId} />));
}

const session = (overrides: Partial<Schemas['AnalysisSessionSummary']>): Schemas['AnalysisSessionSummary'] => ({
  id: 's1',
  endpointId: 'e1',
  createdAt: new Date(Date.now() - 60_000).toISOString(),
  status: 'completed',
  shadow: false,
  trigger: 'scheduled',
  reasoning: 'Backlog is low.',
  toolsCalled: ['get_latest_response'],
  tokenUsage: 1200,
  durationMs: 3000,
  nextAnalysisAt: null,
  endpointFailureCount: 0,
  errorMessage: null,
  ...overrides,
});

describe('AnalysisSessionsList', () => {
  it('says there are none yet and points to Settings', async () => {
    renderList({ sessions: [], total: 0, hasMore: false });
    expect(await screen.findByText('No analysis sessions yet')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Settings' }).getAttribute('href')).toBe('/settings');
  });

  it('links each session, marks shadow ones and the current one, and offers more', async () => {
    renderList(
      {
        sessions: [
          session({ id: 's2', shadow: true }),
          session({ id: 's1', status: 'failed', errorMessage: 'model timeout', reasoning: null }),
        ],
        total: 12,
        hasMore: true,
      },
      's1',
    );
    const links = await screen.findAllByRole('link', { name: /^Analysis / });
    expect(links.map((link) => link.getAttribute('href'))).toEqual(['/analysis-sessions/s2', '/analysis-sessions/s1']);
    expect(links[1]!.getAttribute('aria-current')).toBe('page');
    expect(screen.getByText('Shadow').className).toContain('badge-shadow');
    expect(screen.getByText('model timeout')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Show more analysis sessions' })).toBeTruthy();
    expect(get).toHaveBeenCalledWith('/api/endpoints/{endpointId}/analysis-sessions', {
      params: { path: { endpointId: 'e1' }, query: { limit: 10, offset: 0 } },
    });
  });

  it('appends the next page by offset, past what one request may ask for, and stops at the end', async () => {
    const pageOf = (from: number, count: number, total: number) => ({
      data: {
        sessions: Array.from({ length: count }, (_, i) => session({ id: `s${from + i}` })),
        total,
        hasMore: from + count < total,
      },
      response: new Response(null, { status: 200 }),
    });
    get.mockImplementation(async (_path: string, { params }: { params: { query: { offset: number } } }) =>
      params.query.offset === 0 ? pageOf(0, 10, 13) : pageOf(params.query.offset, 3, 13),
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <MemoryRouter>
          <AnalysisSessionsList endpointId="e1" />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    expect(await screen.findByText('10 of 13 analysis sessions, newest first.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Show more analysis sessions' }));
    expect(await screen.findByText('13 of 13 analysis sessions, newest first.')).toBeTruthy();
    expect(get).toHaveBeenLastCalledWith('/api/endpoints/{endpointId}/analysis-sessions', {
      params: { path: { endpointId: 'e1' }, query: { limit: 10, offset: 10 } },
    });
    expect(screen.getAllByRole('link', { name: /^Analysis / })).toHaveLength(13);
    expect(screen.queryByRole('button', { name: 'Show more analysis sessions' })).toBeNull();
  });
});
