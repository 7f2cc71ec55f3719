/** Run now on the endpoint page and Replay on a run: each posts its request and says what it queued. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Client from '../api/client';
import { EndpointActions } from './endpoint-actions';
import { buildEndpoint } from './endpoint-test-data';
import { RunReplay } from './run-replay';

const post = vi.hoisted(() => vi.fn());
vi.mock('../api/client', async (original) => ({
  ...(await original<typeof Client>()),
  api: { POST: post, GET: vi.fn(), DELETE: vi.fn() },
}));

afterEach(() => {
  cleanup();
  post.mockReset();
});

const queued = (replayOf: string | null) => ({
  data: { runId: 'r2', endpointId: 'e1', source: 'manual', scheduledAt: new Date().toISOString(), replayOf },
  response: new Response(null, { status: 202 }),
});

function renderWithClient(node: React.ReactNode) {
  return render(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter>{node}</MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('Run now and Replay', () => {
  it('Run now posts to the endpoint’s run route and says the run is queued', async () => {
    post.mockResolvedValue(queued(null));
    renderWithClient(<EndpointActions endpoint={buildEndpoint()} />);
    fireEvent.click(screen.getByRole('button', { name: 'Run now' }));
    expect(await screen.findByText(/Run queued/)).toBeTruthy();
    expect(post).toHaveBeenCalledWith('/api/endpoints/{endpointId}/run', {
      params: { path: { endpointId: 'e1' } },
      body: {},
    });
  });

  it('Replay posts to the run’s replay route and links the new run', async () => {
    post.mockResolvedValue(queued('r1'));
    renderWithClient(<RunReplay run={{ id: 'r1', endpointId: 'e1' }} />);
    fireEvent.click(screen.getByRole('button', { name: 'Replay' }));
    const link = await screen.findByRole('link', { name: 'view it' });
    expect(link.getAttribute('href')).toBe('/runs/r2');
    expect(post).toHaveBeenCalledWith('/api/runs/{runId}/replay', { params: { path: { runId: 'r1' } } });
  });

  it('Replay says why when the API refuses it', async () => {
    post.mockRejectedValue(new Error('the endpoint is archived: it does not run'));
    renderWithClient(<RunReplay run={{ id: 'r1', endpointId: 'e1' }} />);
    fireEvent.click(screen.getByRole('button', { name: 'Replay' }));
    expect((await screen.findByRole('alert')).textContent).toContain('archived');
  });
});
