import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
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
      params: { path: { endpointId: 'e1' }, query: { limit: 10 } },
    });
  });
});
